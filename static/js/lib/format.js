// Every display format of the app, written as d3-format writes it (its U.S. English locale, with
// "−" as the minus sign, as d3-format 2 and later print it).  A specifier is d3-format's:
//   [[fill]align][sign][symbol][0][width][,][.precision][~][type]
// with the types e f g r s % p b o d x X c n and none (shorthand for ~g with 12 digits).  This is
// the project's own reading of d3-format's documentation, checked in
// tests/browser/test_format.py against the examples that documentation gives; numbers.js builds
// the app's readouts (fmt, approx, count, ...) on it.

export const MINUS = "\u2212";
const SI = ["y", "z", "a", "f", "p", "n", "µ", "m", "", "k", "M", "G", "T", "P", "E", "Z", "Y"];
const SPEC = /^(?:(.)?([<>=^]))?([+\-( ])?([$#])?(0)?(\d+)?(,)?(\.\d+)?(~)?([a-z%])?$/i;

/** The parts of a specifier; throws on one d3-format would refuse. */
export function parseSpecifier(specifier) {
  const match = SPEC.exec(String(specifier));
  if (!match) throw new Error(`invalid format: ${specifier}`);
  const [, fill, align, sign, symbol, zero, width, comma, precision, trim, type] = match;
  return {
    fill: fill === undefined ? " " : fill,
    align: align === undefined ? ">" : align,
    sign: sign === undefined ? "-" : sign,
    symbol: symbol || "",
    zero: Boolean(zero),
    width: width === undefined ? undefined : Number(width),
    comma: Boolean(comma),
    precision: precision === undefined ? undefined : Number(precision.slice(1)),
    trim: Boolean(trim),
    type: type || "",
  };
}

// A positive number's significant digits and decimal exponent, rounded to `digits` digits.
function digitsOf(x, digits) {
  const [mantissa, exponent] = x.toExponential(digits === undefined ? undefined : digits - 1).split("e");
  return [mantissa.replace(".", ""), Number(exponent)];
}

const zeros = (n) => "0".repeat(Math.max(0, n));

// Rounded to `digits` significant digits, written without an exponent.
function rounded(x, digits) {
  const [coefficient, exponent] = digitsOf(x, digits);
  if (exponent < 0) return `0.${zeros(-exponent - 1)}${coefficient}`;
  if (coefficient.length > exponent + 1) return `${coefficient.slice(0, exponent + 1)}.${coefficient.slice(exponent + 1)}`;
  return coefficient + zeros(exponent + 1 - coefficient.length);
}

// Rounded to `digits` significant digits in the SI unit of its size; returns [text, prefix].
function withPrefix(x, digits) {
  const [coefficient, exponent] = digitsOf(x, digits);
  const power = Math.max(-8, Math.min(8, Math.floor(exponent / 3)));
  const point = exponent - power * 3 + 1; // digits before the decimal point
  const n = coefficient.length;
  let text;
  if (point === n) text = coefficient;
  else if (point > n) text = coefficient + zeros(point - n);
  else if (point > 0) text = `${coefficient.slice(0, point)}.${coefficient.slice(point)}`;
  else text = `0.${zeros(-point)}${digitsOf(x, Math.max(0, digits + point - 1))[0]}`;
  return [text, SI[8 + power]];
}

function integer(x) {
  const whole = Math.round(x);
  return Math.abs(whole) >= 1e21 ? whole.toLocaleString("en-US").replace(/,/g, "") : whole.toString(10);
}

const TYPES = {
  "%": (x, p) => (x * 100).toFixed(p),
  b: (x) => Math.round(x).toString(2),
  c: (x) => `${x}`,
  d: integer,
  e: (x, p) => x.toExponential(p),
  f: (x, p) => x.toFixed(p),
  g: (x, p) => x.toPrecision(p),
  o: (x) => Math.round(x).toString(8),
  p: (x, p) => rounded(x * 100, p),
  r: rounded,
  s: (x, p) => withPrefix(x, p)[0],
  X: (x) => Math.round(x).toString(16).toUpperCase(),
  x: (x) => Math.round(x).toString(16),
};

// Drops the zeros that end the fraction of the leading number (1.5000k -> 1.5k, 2.000 -> 2).
function trimZeros(text) {
  const match = /^(\d*)\.(\d*?)0*(\D.*)?$/.exec(text);
  if (!match) return text;
  const [, whole, fraction, rest] = match;
  return `${whole}${fraction ? `.${fraction}` : ""}${rest || ""}`;
}

// Commas between groups of three integer digits; with a width, zeros in front count toward it.
function group(digits, width) {
  const parts = [];
  let end = digits.length;
  let length = 0;
  while (end > 0) {
    let size = Math.min(3, end);
    if (length + size + 1 > width) size = Math.max(1, width - length);
    parts.push(digits.slice(end - size, end));
    length += size + 1;
    end -= size;
    if (length > width) break;
  }
  return parts.reverse().join(",");
}

/**
 * A function writing numbers as d3.format(specifier) does; `minus` is the locale's minus sign, as
 * in d3.formatLocale({minus}) (the readouts keep a hyphen, the hovers "−").
 */
export function format(specifier, { minus = MINUS } = {}) {
  const spec = parseSpecifier(specifier);
  let { fill, align, sign, symbol, zero, width, comma, precision, trim, type } = spec;
  if (type === "n") { comma = true; type = "g"; }
  else if (!TYPES[type]) { if (precision === undefined) precision = 12; trim = true; type = "g"; }
  if (zero || (fill === "0" && align === "=")) { zero = true; fill = "0"; align = "="; }
  const prefix = symbol === "$" ? "$" : symbol === "#" && /[boxX]/.test(type) ? `0${type.toLowerCase()}` : "";
  const suffix = /[%p]/.test(type) ? "%" : "";
  const writes = TYPES[type];
  const splits = /[defgprs%]/.test(type); // what follows the digits (".5", "e+3") is kept out of grouping
  if (precision === undefined) precision = 6;
  else precision = /[gprs]/.test(type) ? Math.max(1, Math.min(21, precision)) : Math.max(0, Math.min(20, precision));

  return function write(input) {
    let head = prefix;
    let tail = suffix;
    let body;
    if (type === "c") {
      tail = writes(input) + tail;
      body = "";
    } else {
      const value = +input;
      let negative = value < 0 || 1 / value < 0;
      if (Number.isNaN(value)) body = "NaN";
      else {
        body = writes(Math.abs(value), precision);
        if (type === "s") tail = withPrefix(Math.abs(value), precision)[1] + tail;
      }
      if (trim) body = trimZeros(body);
      if (negative && +body === 0 && sign !== "+") negative = false; // no "−0.00"
      head = (negative ? (sign === "(" ? "(" : minus) : sign === "-" || sign === "(" ? "" : sign) + head;
      if (negative && sign === "(") tail += ")";
      if (splits) {
        const cut = body.search(/[^0-9]/);
        if (cut >= 0) { tail = body.slice(cut) + tail; body = body.slice(0, cut); }
      }
    }
    if (comma && !zero) body = group(body, Infinity);
    const length = head.length + body.length + tail.length;
    let padding = width !== undefined && length < width ? fill.repeat(width - length) : "";
    if (comma && zero) {
      body = group(padding + body, padding.length ? width - tail.length - head.length : Infinity);
      padding = "";
    }
    if (align === "<") return head + body + tail + padding;
    if (align === "=") return head + padding + body + tail;
    if (align === "^") {
      const half = padding.length >> 1;
      return padding.slice(0, half) + head + body + tail + padding.slice(half);
    }
    return padding + head + body + tail;
  };
}
