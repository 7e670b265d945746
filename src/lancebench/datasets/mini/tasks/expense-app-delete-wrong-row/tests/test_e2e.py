"""End-to-end tests of Pocket Expenses, driving Debian's Chromium through Playwright.

The server is started by test.sh; its address is in APP_URL.
"""

import os

import pytest
from playwright.sync_api import Page, sync_playwright

APP_URL = os.environ.get("APP_URL", "http://127.0.0.1:8765/")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run", "--disable-dev-shm-usage"]

EXPENSES = [("Lunch", "Food", "12.50"), ("Taxi to airport", "Travel", "48.00"),
            ("Printer paper", "Office", "7.25"), ("Train ticket", "Travel", "31.40")]


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


def add_expense(page: Page, description: str, category: str, amount: str) -> None:
    page.fill("#expense-description", description)
    page.select_option("#expense-category", category)
    page.fill("#expense-amount", amount)
    page.click("#add-expense")


def add_all(page: Page) -> None:
    for expense in EXPENSES:
        add_expense(page, *expense)


def shown_descriptions(page: Page) -> list[str]:
    return [t.strip() for t in page.locator("#expenses tbody tr .description").all_inner_texts()]


def delete(page: Page, description: str) -> None:
    page.locator("#expenses tbody tr", has_text=description).locator("button.delete").click()


def test_delete_after_sorting_by_amount(page):
    add_all(page)
    page.select_option("#sort", "amount-desc")
    delete(page, "Printer paper")
    assert shown_descriptions(page) == ["Taxi to airport", "Train ticket", "Lunch"], \
        "Delete must remove the row it was clicked on"
    assert page.inner_text("#total").strip() == "$91.90"


def test_delete_while_filtered(page):
    add_all(page)
    page.select_option("#filter", "Travel")
    delete(page, "Train ticket")
    assert shown_descriptions(page) == ["Taxi to airport"], "Delete must remove the row it was clicked on"
    page.select_option("#filter", "")
    assert shown_descriptions(page) == ["Lunch", "Taxi to airport", "Printer paper"]


def test_deleted_row_stays_deleted_after_reload(page):
    add_all(page)
    page.select_option("#sort", "description")
    delete(page, "Taxi to airport")
    page.reload()
    assert shown_descriptions(page) == ["Lunch", "Printer paper", "Train ticket"]
    assert page.inner_text("#total").strip() == "$51.15"


def test_add_expenses_and_total(page):
    add_all(page)
    assert shown_descriptions(page) == [e[0] for e in EXPENSES]
    assert page.inner_text("#total").strip() == "$99.15"
    assert not page.is_visible("#empty")


def test_sorting_orders_rows(page):
    add_all(page)
    page.select_option("#sort", "amount-asc")
    assert shown_descriptions(page) == ["Printer paper", "Lunch", "Train ticket", "Taxi to airport"]
    page.select_option("#sort", "description")
    assert shown_descriptions(page) == ["Lunch", "Printer paper", "Taxi to airport", "Train ticket"]


def test_delete_in_added_order(page):
    add_all(page)
    delete(page, "Taxi to airport")
    assert shown_descriptions(page) == ["Lunch", "Printer paper", "Train ticket"]
    assert page.inner_text("#total").strip() == "$51.15"


def test_filter_and_total(page):
    add_all(page)
    page.select_option("#filter", "Travel")
    assert shown_descriptions(page) == ["Taxi to airport", "Train ticket"]
    assert page.inner_text("#total").strip() == "$79.40"


def test_empty_list(page):
    assert shown_descriptions(page) == []
    assert page.is_visible("#empty")
    assert page.inner_text("#total").strip() == "$0.00"
