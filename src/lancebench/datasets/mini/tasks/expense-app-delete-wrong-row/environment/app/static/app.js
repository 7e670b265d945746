// Pocket Expenses: a list of expenses kept in the browser's local storage.
"use strict";

const STORAGE_KEY = "pocket-expenses";

const state = load();

function load() {
  try {
    const saved = JSON.parse(localStorage.getItem(STORAGE_KEY));
    if (saved && Array.isArray(saved.expenses)) {
      return saved;
    }
  } catch (err) {
    console.warn("could not read saved expenses", err);
  }
  return { expenses: [], nextId: 1 };
}

function save() {
  localStorage.setItem(STORAGE_KEY, JSON.stringify(state));
}

function formatMoney(cents) {
  const whole = String(Math.floor(cents / 100)).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  return "$" + whole + "." + String(cents % 100).padStart(2, "0");
}

// The expenses to show, in the order the user picked.
function visibleExpenses() {
  const category = document.getElementById("filter").value;
  const sort = document.getElementById("sort").value;
  const list = state.expenses.filter((e) => !category || e.category === category);
  if (sort === "amount-desc") {
    list.sort((a, b) => b.cents - a.cents);
  } else if (sort === "amount-asc") {
    list.sort((a, b) => a.cents - b.cents);
  } else if (sort === "description") {
    list.sort((a, b) => a.description.localeCompare(b.description));
  }
  return list;
}

function deleteExpense(index) {
  state.expenses.splice(index, 1);
  save();
  render();
}

function render() {
  const body = document.querySelector("#expenses tbody");
  body.innerHTML = "";
  const shown = visibleExpenses();
  shown.forEach((expense, index) => {
    const row = document.createElement("tr");
    row.innerHTML = `<td class="description"></td><td class="category"></td><td class="num amount"></td>` +
      `<td><button class="delete" type="button">Delete</button></td>`;
    row.querySelector(".description").textContent = expense.description;
    row.querySelector(".category").textContent = expense.category;
    row.querySelector(".amount").textContent = formatMoney(expense.cents);
    row.querySelector(".delete").addEventListener("click", () => deleteExpense(index));
    body.appendChild(row);
  });
  document.getElementById("empty").hidden = shown.length > 0;
  document.getElementById("total").textContent = formatMoney(shown.reduce((sum, e) => sum + e.cents, 0));
}

document.getElementById("expense-form").addEventListener("submit", (event) => {
  event.preventDefault();
  const description = document.getElementById("expense-description").value.trim();
  const category = document.getElementById("expense-category").value;
  const cents = Math.round(Number(document.getElementById("expense-amount").value) * 100);
  if (!description || !(cents > 0)) {
    return;
  }
  state.expenses.push({ id: state.nextId++, description, category, cents });
  save();
  event.target.reset();
  document.getElementById("expense-description").focus();
  render();
});

document.getElementById("sort").addEventListener("change", render);
document.getElementById("filter").addEventListener("change", render);

render();
