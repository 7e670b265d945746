// Tally Invoices: the invoice editor.
"use strict";

const state = { lines: [], nextId: 1 };

function subtotal() {
  return state.lines.reduce((sum, line) => sum + Money.lineAmount(line.quantity, line.unitPrice), 0);
}

function render() {
  const body = document.querySelector("#lines tbody");
  body.innerHTML = "";
  for (const line of state.lines) {
    const row = document.createElement("tr");
    row.dataset.id = String(line.id);
    row.innerHTML = `<td class="description"></td><td class="num quantity"></td><td class="num price"></td>` +
      `<td class="num amount"></td><td><button class="remove" type="button">Remove</button></td>`;
    row.querySelector(".description").textContent = line.description;
    row.querySelector(".quantity").textContent = String(line.quantity);
    row.querySelector(".price").textContent = Money.format(line.unitPrice);
    row.querySelector(".amount").textContent = Money.format(Money.lineAmount(line.quantity, line.unitPrice));
    row.querySelector(".remove").addEventListener("click", () => {
      state.lines = state.lines.filter((l) => l.id !== line.id);
      render();
    });
    body.appendChild(row);
  }
  document.getElementById("empty").hidden = state.lines.length > 0;
  const rate = Number(document.getElementById("tax-rate").value);
  const sub = subtotal();
  const tax = Money.tax(sub, rate);
  document.getElementById("subtotal").textContent = Money.format(sub);
  document.getElementById("tax").textContent = Money.format(tax);
  document.getElementById("total").textContent = Money.format(sub + tax);
}

document.getElementById("line-form").addEventListener("submit", (event) => {
  event.preventDefault();
  const description = document.getElementById("line-description").value.trim();
  const quantity = Number.parseInt(document.getElementById("line-quantity").value, 10);
  const unitPrice = Money.parse(document.getElementById("line-price").value);
  if (!description || !(quantity > 0) || !(unitPrice >= 0)) {
    return;
  }
  state.lines.push({ id: state.nextId++, description, quantity, unitPrice });
  event.target.reset();
  document.getElementById("line-description").focus();
  render();
});

document.getElementById("tax-rate").addEventListener("change", render);

render();
