// The table mark: rows of data written into a <tbody> (or <thead>) the template declares, one <tr>
// per row and one cell per column.  A page gives its rows and its columns; the mark keeps the rows it
// made and, on the next call, writes only the cells whose text changed (a row more or less is added
// or removed at the end), so a table that follows a slider or an animation costs what changed.
//
//   table(target, rows, columns)
//     target   the <tbody>/<thead> element, a <table> (its first <tbody>, made if missing) or a CSS
//              selector; nothing is drawn (null) when there is no such element on the page
//     rows     an array (or anything with length and index access) of row data
//     columns  [{ key | value(row, i), format?, header?, align?, data? }, …]
//       key      the row's own field (row[key]); or value(row, i) computing the cell's value
//       format   (value) => text: a formatter from numbers.js (approx, fmt, count, …) bound to its
//                digits, or a d3-format specifier written by format.js (hover style: "−" minus);
//                without one the value is written as String(value)
//       header   "row" (or true): a <th scope="row">; "col": a <th scope="col">; else a <td>
//       align    "left" | "center" | "right": the cell's text-align
//       data     { name: value | (row, i) => value }: data-* attributes on the cell
//
// Formatting is skipped where it cannot change the text: with the same `columns` array as the last
// call (new columns re-dress the cells they keep), a cell whose value is the same (Object.is) as last time keeps its text.  Pages therefore
// declare their columns once (module constants), and pass rows whose values are plain numbers or
// strings.  The return value says what the call did: { rows, written } (cells whose text was set).

import { format as d3format, MINUS } from "../format.js";

const state = new WeakMap(); // body element → { columns, values: [[…], …] }

const specWriters = new Map();
function writerOf(spec) {
  if (!specWriters.has(spec)) specWriters.set(spec, d3format(spec, { minus: MINUS }));
  return specWriters.get(spec);
}

function textOf(column, value) {
  if (typeof column.format === "function") return String(column.format(value));
  if (typeof column.format === "string") {
    if (typeof value !== "number") return value === null || value === undefined ? "—" : String(value);
    return writerOf(column.format)(value);
  }
  return value === null || value === undefined ? "" : String(value);
}

function bodyOf(target) {
  const el = typeof target === "string" ? document.querySelector(target) : target;
  if (!el) return null;
  if (el.tagName === "TABLE") return el.tBodies[0] || el.appendChild(document.createElement("tbody"));
  return el;
}

function cellTag(column) {
  return column.header ? "TH" : "TD";
}

// A cell's scope and alignment, as its column says (set again only when the columns change).
function dress(cell, column) {
  const scope = column.header ? (column.header === "col" ? "col" : "row") : "";
  if (scope && cell.scope !== scope) cell.scope = scope;
  const align = column.align || "";
  if (cell.style.textAlign !== align) cell.style.textAlign = align;
}

function makeCell(column) {
  const cell = document.createElement(cellTag(column).toLowerCase());
  dress(cell, column);
  return cell;
}

/** Fill (or update) a table body from `rows` and `columns`; see the module comment. */
export function table(target, rows, columns) {
  const body = bodyOf(target);
  if (!body) return null;
  let known = state.get(body);
  // Rows this mark did not make (a template's placeholder, another filler) are replaced.
  if (!known || body.rows.length !== known.values.length) {
    body.replaceChildren();
    known = { columns: null, values: [] };
  }
  const sameColumns = known.columns === columns;
  const n = rows.length;
  let written = 0;
  for (let i = 0; i < n; i += 1) {
    const row = rows[i];
    let tr = body.rows[i];
    let last = sameColumns ? known.values[i] : undefined;
    if (!tr) {
      tr = body.appendChild(document.createElement("tr"));
      last = undefined;
    }
    const values = new Array(columns.length);
    for (let c = 0; c < columns.length; c += 1) {
      const column = columns[c];
      const value = column.value ? column.value(row, i) : row[column.key];
      values[c] = value;
      let cell = tr.cells[c];
      if (!cell || cell.tagName !== cellTag(column)) {
        const fresh = makeCell(column);
        if (cell) tr.replaceChild(fresh, cell);
        else tr.appendChild(fresh);
        cell = fresh;
        last = undefined;
      } else if (!sameColumns) {
        dress(cell, column);
      }
      if (column.data) {
        for (const [name, given] of Object.entries(column.data)) {
          const attr = String(typeof given === "function" ? given(row, i) : given);
          if (cell.dataset[name] !== attr) cell.dataset[name] = attr;
        }
      }
      if (last !== undefined && Object.is(last[c], value)) continue;
      const text = textOf(column, value);
      if (cell.textContent !== text) {
        cell.textContent = text;
        written += 1;
      }
    }
    while (tr.cells.length > columns.length) tr.lastElementChild.remove();
    known.values[i] = values;
  }
  while (body.rows.length > n) body.lastElementChild.remove();
  known.values.length = n;
  known.columns = columns;
  state.set(body, known);
  return { rows: n, written };
}
