// Hidden tests of ts-dedent-escape-sequences (mocha, node's assert), adapted from ts-dedent's
// own suite (MIT, Tamino Martinius): the escape-sequence cases its 2.1.0 release added, and
// cases of 2.0.0 that the fix must keep.
import { dedent } from './src';

declare function describe(title: string, body: () => void): void;
declare function it(title: string, body: () => void): void;
declare function require(name: string): any;
const assert = require('assert');

function tag(strings: TemplateStringsArray, ...values: number[]): string {
  let string = strings[0];
  values.forEach((value, i) => {
    string += 2 * value + strings[i + 1];
  });
  return string;
}

describe('dedent tag', () => {
  it('processes escaped interpolations and backticks', () => {
    const got = dedent`
          \${not interpolated}
          \`
        `;
    assert.strictEqual(got, '${not interpolated}\n`');
  });

  it('processes character escapes as a template literal does', () => {
    assert.strictEqual(dedent`a\tb\\c\u00e9`, 'a\tb\\c\u00e9');
    assert.strictEqual(dedent`
      one\x21
        two
    `, 'one!\n  two');
  });

  it('removes the common indentation and the leading and trailing line break', () => {
    assert.strictEqual(dedent`
			Line #1
			Line #2
			Line #3
			`, 'Line #1\nLine #2\nLine #3');
    assert.strictEqual(dedent`Line #1
            Line #2
            Line #3`, 'Line #1\nLine #2\nLine #3');
  });

  it('interpolates values after dedenting', () => {
    assert.strictEqual(dedent`
			${1}. line #${1}
			${2}. line #${2}
			${3}. line
			`, '1. line #1\n2. line #2\n3. line');
  });

  it('keeps a deeper indentation relative to the common one', () => {
    assert.strictEqual(dedent`
      first
        second
          third
    `, 'first\n  second\n    third');
  });
});

describe('dedent() function', () => {
  it('processes escape sequences', () => {
    assert.strictEqual(dedent(`
          \${not interpolated}
          \`
        `), '${not interpolated}\n`');
  });

  it('dedents the result of another tag', () => {
    assert.strictEqual(dedent(tag`
      ${1}. line #${1}
      ${2}. line #${2}
    `), '2. line #2\n4. line #4');
  });
});
