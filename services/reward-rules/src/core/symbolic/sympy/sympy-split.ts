// sympy 1.14 split_symbols (the first step of implicit_multiplication_application).
import { pyIsDigit } from '../../py/str.ts';
import type { Tok } from '../cpython/py-tokenize.ts';
import { inGlobals, isSplittable } from './sympy-names.ts';

const op = (v: string): Tok => ({ t: 'OP', v });

/** split_symbols: Symbol('xy') -> Symbol('x')Symbol('y'), digits -> Number('12'). */
export function splitSymbols(tokens: readonly Tok[]): Tok[] {
  const out: Tok[] = [];
  let split = false;
  let skipNext = false;
  for (const tok of tokens) {
    if (skipNext) {
      skipNext = false;
      continue;
    }
    if (tok.t === 'NAME' && (tok.v === 'Symbol' || tok.v === 'Function')) {
      split = true;
    } else if (split && tok.t === 'NAME') {
      const symbol = [...tok.v.slice(1, -1)];
      if (!isSplittable(symbol.join(''))) {
        split = false;
      } else {
        out.splice(out.length - 2, 2);
        for (let i = 0; i < symbol.length; i++) {
          const ch = symbol[i] as string;
          if (inGlobals(ch)) {
            out.push({ t: 'NAME', v: ch });
          } else if (pyIsDigit(ch)) {
            let run = ch;
            while (i + 1 < symbol.length && pyIsDigit(symbol[i + 1] as string)) run += symbol[++i];
            out.push({ t: 'NAME', v: 'Number' }, op('('), { t: 'NAME', v: `'${run}'` }, op(')'));
          } else {
            // sympy picks `tok_type if i == len(symbol)`, never true in its loop: always Symbol.
            out.push({ t: 'NAME', v: 'Symbol' }, op('('), { t: 'NAME', v: `'${ch}'` }, op(')'));
          }
        }
        split = false;
        skipNext = true;
        continue;
      }
    }
    out.push(tok);
  }
  return out;
}
