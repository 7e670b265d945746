package humanize

import "testing"

// Fail-to-pass: a whole number that ends in zeros keeps them when its decimals are cut.
func TestFtoaWithDigitsKeepsIntegerZeros(t *testing.T) {
	cases := []struct {
		num    float64
		digits int
		want   string
	}{
		{10, 0, "10"},
		{100.25, 0, "100"},
		{2000.7, 0, "2000"},
		{-30.5, 0, "-30"},
	}
	for _, c := range cases {
		if got := FtoaWithDigits(c.num, c.digits); got != c.want {
			t.Errorf("FtoaWithDigits(%v, %d) = %q, want %q", c.num, c.digits, got, c.want)
		}
	}
}

// Fail-to-pass: the shortened numbers that SI and friends print go through the same helper.
func TestFtoaWithDigitsRoundNumbers(t *testing.T) {
	if got := FtoaWithDigits(1000, 0); got != "1000" {
		t.Errorf("FtoaWithDigits(1000, 0) = %q, want %q", got, "1000")
	}
	if got := FtoaWithDigits(500, 1); got != "500" {
		t.Errorf("FtoaWithDigits(500, 1) = %q, want %q", got, "500")
	}
}

// Pass-to-pass: decimals are still cut and trailing fractional zeros still dropped.
func TestFtoaWithDigitsDecimals(t *testing.T) {
	cases := []struct {
		num    float64
		digits int
		want   string
	}{
		{1.23, 0, "1"},
		{1.23, 1, "1.2"},
		{1.23, 2, "1.23"},
		{1.23, 3, "1.23"},
		{2.50, 2, "2.5"},
		{0.001, 2, "0"},
	}
	for _, c := range cases {
		if got := FtoaWithDigits(c.num, c.digits); got != c.want {
			t.Errorf("FtoaWithDigits(%v, %d) = %q, want %q", c.num, c.digits, got, c.want)
		}
	}
}

// Pass-to-pass: Ftoa keeps whole numbers and drops fractional zeros.
func TestFtoa(t *testing.T) {
	cases := map[float64]string{200: "200", 2: "2", 2.2: "2.2", 2.02: "2.02", 200.02: "200.02", -40: "-40"}
	for num, want := range cases {
		if got := Ftoa(num); got != want {
			t.Errorf("Ftoa(%v) = %q, want %q", num, got, want)
		}
	}
}

// Pass-to-pass: Comma and Commaf are unaffected.
func TestCommas(t *testing.T) {
	if got := Comma(1234567); got != "1,234,567" {
		t.Errorf("Comma(1234567) = %q", got)
	}
	if got := Commaf(-1234.5); got != "-1,234.5" {
		t.Errorf("Commaf(-1234.5) = %q", got)
	}
}
