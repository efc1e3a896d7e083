// The label selector string form, e.g. "a=b,c!=d,e in (x,y),f notin (z),g,!h,n>1": the lexer and recursive descent
// parser of k8s.io/apimachinery/pkg/labels/selector.go (Lexer, Parser), with its error messages.
import {
  BINARY_OPERATOR_LIST,
  LabelSelectorError,
  labelKeyError,
  newRequirement,
  type Requirement,
} from './requirement';

const enum Token {
  Error,
  EndOfString,
  ClosedPar,
  Comma,
  DoesNotExist,
  DoubleEquals,
  Equals,
  GreaterThan,
  Identifier,
  In,
  LessThan,
  NotEquals,
  NotIn,
  OpenPar,
}

const KEYWORDS: Record<string, Token> = {
  ')': Token.ClosedPar,
  ',': Token.Comma,
  '!': Token.DoesNotExist,
  '==': Token.DoubleEquals,
  '=': Token.Equals,
  '>': Token.GreaterThan,
  in: Token.In,
  '<': Token.LessThan,
  '!=': Token.NotEquals,
  notin: Token.NotIn,
  '(': Token.OpenPar,
};
const keyword = (s: string): Token | undefined =>
  Object.prototype.hasOwnProperty.call(KEYWORDS, s) ? KEYWORDS[s] : undefined;

interface Item {
  tok: Token;
  lit: string;
}

const isWhitespace = (ch: string) => ch === ' ' || ch === '\t' || ch === '\r' || ch === '\n';
const isSpecial = (ch: string) => '=!(),><'.includes(ch);

/** Splits the input into tokens; every item up to and including EndOfString. */
function lex(s: string): Item[] {
  const items: Item[] = [];
  let pos = 0;
  for (;;) {
    while (pos < s.length && isWhitespace(s[pos])) pos++;
    if (pos >= s.length) {
      items.push({ tok: Token.EndOfString, lit: '' });
      return items;
    }
    const start = pos;
    if (isSpecial(s[pos])) {
      // The longest run of special symbols that is a keyword ("!=" rather than "!").
      let last: Item | undefined;
      let end = pos;
      while (end < s.length && isSpecial(s[end])) {
        const tok = keyword(s.slice(start, end + 1));
        if (tok !== undefined) last = { tok, lit: s.slice(start, end + 1) };
        else if (last) break;
        end++;
      }
      if (!last) {
        items.push({ tok: Token.Error, lit: `error expected: keyword found '${s.slice(start, end)}'` });
        pos = end;
      } else {
        items.push(last);
        pos = start + last.lit.length;
      }
      continue;
    }
    while (pos < s.length && !isSpecial(s[pos]) && !isWhitespace(s[pos])) pos++;
    const lit = s.slice(start, pos);
    items.push({ tok: keyword(lit) ?? Token.Identifier, lit });
  }
}

/** In a value position "in" and "notin" are identifiers ("x in (in)"). */
const asValue = (t: Token) => (t === Token.In || t === Token.NotIn ? Token.Identifier : t);

class Parser {
  private position = 0;
  constructor(private readonly items: Item[]) {}

  private lookahead(): Item {
    const it = this.items[this.position];
    return { tok: asValue(it.tok), lit: it.lit };
  }

  private consume(values = true): Item {
    const it = this.items[this.position++];
    return { tok: values ? asValue(it.tok) : it.tok, lit: it.lit };
  }

  parse(): Requirement[] {
    const requirements: Requirement[] = [];
    for (;;) {
      const { tok, lit } = this.lookahead();
      if (tok === Token.EndOfString) return requirements;
      if (tok !== Token.Identifier && tok !== Token.DoesNotExist)
        throw new LabelSelectorError(`found '${lit}', expected: !, identifier, or 'end of string'`);
      try {
        requirements.push(this.parseRequirement());
      } catch (e) {
        if (e instanceof LabelSelectorError) throw new LabelSelectorError(`unable to parse requirement: ${e.message}`);
        throw e;
      }
      const next = this.consume();
      if (next.tok === Token.EndOfString) return requirements;
      if (next.tok !== Token.Comma)
        throw new LabelSelectorError(`found '${next.lit}', expected: ',' or 'end of string'`);
      const after = this.lookahead();
      if (after.tok !== Token.Identifier && after.tok !== Token.DoesNotExist)
        throw new LabelSelectorError(`found '${after.lit}', expected: identifier after ','`);
    }
  }

  private parseRequirement(): Requirement {
    let { tok, lit: key } = this.consume();
    const doesNotExist = tok === Token.DoesNotExist;
    if (doesNotExist) ({ tok, lit: key } = this.consume());
    if (tok !== Token.Identifier) throw new LabelSelectorError(`found '${key}', expected: identifier`);
    const keyError = labelKeyError(key, undefined);
    if (keyError) throw new LabelSelectorError(keyError);
    // "!key" ends the requirement whatever follows ("!x=a" then fails on the "=", as upstream).
    if (doesNotExist) return newRequirement(key, '!', []);
    const next = this.lookahead().tok;
    if (next === Token.EndOfString || next === Token.Comma) return newRequirement(key, 'exists', []);
    const operator = this.parseOperator();
    const values = operator === 'in' || operator === 'notin' ? this.parseValues() : this.parseExactValue();
    return newRequirement(key, operator, [...values].sort());
  }

  private parseOperator(): string {
    const { tok, lit } = this.consume(false);
    switch (tok) {
      case Token.In:
        return 'in';
      case Token.Equals:
        return '=';
      case Token.DoubleEquals:
        return '==';
      case Token.GreaterThan:
        return 'gt';
      case Token.LessThan:
        return 'lt';
      case Token.NotIn:
        return 'notin';
      case Token.NotEquals:
        return '!=';
      default:
        throw new LabelSelectorError(`found '${lit}', expected: ${BINARY_OPERATOR_LIST}`);
    }
  }

  /** "(a,b)": a set; "()" and empty items stand for the empty value. */
  private parseValues(): Set<string> {
    const open = this.consume();
    if (open.tok !== Token.OpenPar) throw new LabelSelectorError(`found '${open.lit}' expected: '('`);
    const { tok, lit } = this.lookahead();
    if (tok === Token.ClosedPar) {
      this.consume();
      return new Set(['']);
    }
    if (tok !== Token.Identifier && tok !== Token.Comma)
      throw new LabelSelectorError(`found '${lit}', expected: ',', ')' or identifier`);
    const values = this.parseIdentifiersList();
    if (this.consume().tok !== Token.ClosedPar) throw new LabelSelectorError(`found '${lit}', expected: ')'`);
    return values;
  }

  private parseIdentifiersList(): Set<string> {
    const values = new Set<string>();
    for (;;) {
      const { tok, lit } = this.consume();
      if (tok === Token.Identifier) {
        values.add(lit);
        const next = this.lookahead();
        if (next.tok === Token.Comma) continue;
        if (next.tok === Token.ClosedPar) return values;
        throw new LabelSelectorError(`found '${next.lit}', expected: ',' or ')'`);
      }
      if (tok !== Token.Comma) throw new LabelSelectorError(`found '${lit}', expected: ',', or identifier`);
      // "(,", ",)" and ",," hold the empty value.
      if (values.size === 0) values.add('');
      const next = this.lookahead().tok;
      if (next === Token.ClosedPar) {
        values.add('');
        return values;
      }
      if (next === Token.Comma) values.add('');
    }
  }

  /** The value after "=", "==", "!=", ">" or "<"; empty at the end or before a comma. */
  private parseExactValue(): Set<string> {
    const next = this.lookahead().tok;
    if (next === Token.EndOfString || next === Token.Comma) return new Set(['']);
    const { tok, lit } = this.consume();
    if (tok === Token.Identifier) return new Set([lit]);
    throw new LabelSelectorError(`found '${lit}', expected: identifier`);
  }
}

/** labels.Parse without the final sort: the requirements in the order written. Throws LabelSelectorError. */
export function parseRequirements(selector: string): Requirement[] {
  return new Parser(lex(selector)).parse();
}
