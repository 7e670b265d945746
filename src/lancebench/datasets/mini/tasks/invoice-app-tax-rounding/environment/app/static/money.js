// Money helpers for Tally Invoices.
"use strict";

const Money = {
  // Format a number of dollars as "$1,234.56".
  format(amount) {
    const sign = amount < 0 ? "-" : "";
    const [whole, cents] = Math.abs(amount).toFixed(2).split(".");
    return sign + "$" + whole.replace(/\B(?=(\d{3})+(?!\d))/g, ",") + "." + cents;
  },

  // Parse what the user typed in a price field ("12.5", "1,200.00") into dollars.
  parse(text) {
    const value = Number(String(text).replace(/[,$\s]/g, ""));
    return Number.isFinite(value) ? value : NaN;
  },

  // Amount of one invoice line.
  lineAmount(quantity, unitPrice) {
    return quantity * unitPrice;
  },

  // Tax on an amount at a percentage rate (8.25 means 8.25%).
  tax(amount, ratePercent) {
    return amount * ratePercent / 100;
  },
};
