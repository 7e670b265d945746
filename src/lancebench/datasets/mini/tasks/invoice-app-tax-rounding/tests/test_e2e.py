"""End-to-end tests of Tally Invoices, driving Debian's Chromium through Playwright.

The server is started by test.sh; its address is in APP_URL.
"""

import os

import pytest
from playwright.sync_api import Page, sync_playwright

APP_URL = os.environ.get("APP_URL", "http://127.0.0.1:8765/")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run", "--disable-dev-shm-usage"]


@pytest.fixture(scope="module")
def browser():
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
        yield browser
        browser.close()


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1000, "height": 760})
    page = context.new_page()
    page.set_default_timeout(10_000)
    page.goto(APP_URL)
    yield page
    context.close()


def add_line(page: Page, description: str, quantity: int, price: str) -> None:
    page.fill("#line-description", description)
    page.fill("#line-quantity", str(quantity))
    page.fill("#line-price", price)
    page.click("#add-line")


def totals(page: Page) -> tuple[str, str, str]:
    return (page.inner_text("#subtotal").strip(), page.inner_text("#tax").strip(), page.inner_text("#total").strip())


def test_tax_half_cent_rounds_up(page):
    add_line(page, "Consulting", 1, "10.00")
    page.select_option("#tax-rate", "8.25")
    assert totals(page) == ("$10.00", "$0.83", "$10.83"), "8.25% of $10.00 is $0.825, which rounds up to $0.83"


def test_tax_on_several_units(page):
    add_line(page, "Notebook", 3, "1.15")
    page.select_option("#tax-rate", "10")
    assert totals(page) == ("$3.45", "$0.35", "$3.80"), "10% of $3.45 is $0.345, which rounds up to $0.35"


def test_total_is_subtotal_plus_tax(page):
    add_line(page, "Pencil", 1, "0.70")
    page.select_option("#tax-rate", "5")
    subtotal, tax, total = totals(page)
    assert (subtotal, tax) == ("$0.70", "$0.04"), "5% of $0.70 is $0.035, which rounds up to $0.04"
    assert total == "$0.74", "the total must be the shown subtotal plus the shown tax"


def test_line_amount_and_subtotal(page):
    add_line(page, "Hosting", 3, "19.99")
    row = page.locator("#lines tbody tr")
    assert row.count() == 1
    assert row.locator(".amount").inner_text().strip() == "$59.97"
    assert totals(page) == ("$59.97", "$0.00", "$59.97")


def test_exact_tax_and_thousands(page):
    add_line(page, "Workshop", 12, "150")
    page.select_option("#tax-rate", "20")
    assert totals(page) == ("$1,800.00", "$360.00", "$2,160.00")
    page.select_option("#tax-rate", "8.25")
    assert totals(page) == ("$1,800.00", "$148.50", "$1,948.50")


def test_remove_line_updates_totals(page):
    add_line(page, "Design", 2, "40")
    add_line(page, "Review", 1, "25.50")
    assert totals(page)[0] == "$105.50"
    page.locator("#lines tbody tr", has_text="Design").locator("button.remove").click()
    assert page.locator("#lines tbody tr").count() == 1
    assert totals(page) == ("$25.50", "$0.00", "$25.50")


def test_empty_invoice(page):
    assert page.locator("#lines tbody tr").count() == 0
    assert page.is_visible("#empty")
    assert totals(page) == ("$0.00", "$0.00", "$0.00")
