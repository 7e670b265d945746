'use strict';
// Hidden tests of minimist-constructor-pollution (mocha, node's assert).
const assert = require('assert');
const parse = require('/app');

function cleanUp () {
    for (const proto of [Function.prototype, Object.prototype]) {
        for (const key of ['y', 'foo', 'polluted']) delete proto[key];
    }
}

describe('minimist prototype pollution', function () {
    afterEach(cleanUp);

    it('does not reach Function.prototype through an array method', function () {
        const argv = parse(['--_.concat.constructor.prototype.y', '123']);
        assert.strictEqual((function () {}).y, undefined);
        assert.strictEqual(argv.y, undefined);
    });

    it('does not reach Function.prototype through constructor.constructor', function () {
        parse('--_.constructor.constructor.prototype.foo bar'.split(' '));
        assert.strictEqual((function () {}).foo, undefined);
    });

    it('does not reach Object.prototype through the options object', function () {
        parse(['--constructor.prototype.polluted', 'yes']);
        assert.strictEqual({}.polluted, undefined);
    });

    it('ignores __proto__ keys', function () {
        parse(['--__proto__.polluted', 'yes', '--a.__proto__.y', '1']);
        assert.strictEqual({}.polluted, undefined);
        assert.strictEqual({}.y, undefined);
    });
});

describe('minimist parsing', function () {
    it('reads long options with and without =', function () {
        const argv = parse(['--name', 'box', '--count=3']);
        assert.strictEqual(argv.name, 'box');
        assert.strictEqual(argv.count, 3);
    });

    it('reads a group of short flags', function () {
        const argv = parse(['-abc']);
        assert.deepStrictEqual([argv.a, argv.b, argv.c], [true, true, true]);
    });

    it('nests dotted keys', function () {
        const argv = parse(['--a.b.c', '1', '--a.d', 'x']);
        assert.deepStrictEqual(argv.a, { b: { c: 1 }, d: 'x' });
    });

    it('collects positional arguments', function () {
        const argv = parse(['one', '--key', 'value', 'two', '--', '--three']);
        assert.deepStrictEqual(argv._, ['one', 'two', '--three']);
    });

    it('honours string and boolean options', function () {
        const argv = parse(['--id', '007', '-v', 'file'], { string: ['id'], boolean: ['v'] });
        assert.strictEqual(argv.id, '007');
        assert.strictEqual(argv.v, true);
        assert.deepStrictEqual(argv._, ['file']);
    });
});
