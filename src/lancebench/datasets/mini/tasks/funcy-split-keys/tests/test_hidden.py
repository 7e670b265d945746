"""Hidden tests: the new funcy.split_keys (F2P) and the neighbouring helpers (P2P)."""

from collections import OrderedDict, defaultdict

import funcy
from funcy import lsplit, select_keys, select_values


# ---- fail-to-pass: split_keys ----------------------------------------------------------


def test_split_keys_basic():
    passed, rest = funcy.split_keys(lambda k: k.startswith("x_"), {"x_a": 1, "b": 2, "x_c": 3})
    assert passed == {"x_a": 1, "x_c": 3}
    assert rest == {"b": 2}


def test_split_keys_is_exported():
    from funcy import split_keys

    assert "split_keys" in funcy.__all__
    assert split_keys.__doc__


def test_split_keys_extended_predicates():
    d = {"_private": 1, "public": 2, "_other": 3}
    assert funcy.split_keys(r"^_", d) == ({"_private": 1, "_other": 3}, {"public": 2})
    assert funcy.split_keys({"public"}, d) == ({"public": 2}, {"_private": 1, "_other": 3})
    assert funcy.split_keys(None, {0: "a", 1: "b"}) == ({1: "b"}, {0: "a"})


def test_split_keys_keeps_order():
    d = {k: i for i, k in enumerate("fedcba")}
    passed, rest = funcy.split_keys(set("fdb"), d)
    assert list(passed) == ["f", "d", "b"]
    assert list(rest) == ["e", "c", "a"]


def test_split_keys_keeps_collection_type():
    od = OrderedDict([("a", 1), ("b", 2)])
    passed, rest = funcy.split_keys("a", od)
    assert type(passed) is OrderedDict and type(rest) is OrderedDict
    assert passed == OrderedDict([("a", 1)]) and rest == OrderedDict([("b", 2)])

    dd = defaultdict(list, a=[1], b=[2])
    passed, rest = funcy.split_keys("a", dd)
    assert isinstance(passed, defaultdict) and isinstance(rest, defaultdict)
    assert passed.default_factory is list and rest.default_factory is list
    assert dict(passed) == {"a": [1]} and dict(rest) == {"b": [2]}


def test_split_keys_on_pairs():
    pairs = [(1, "a"), (2, "b"), (3, "c")]
    assert funcy.split_keys(lambda k: k % 2, pairs) == ([(1, "a"), (3, "c")], [(2, "b")])


def test_split_keys_empty_and_one_sided():
    assert funcy.split_keys(bool, {}) == ({}, {})
    assert funcy.split_keys(lambda k: True, {"a": 1}) == ({"a": 1}, {})
    assert funcy.split_keys(lambda k: False, {"a": 1}) == ({}, {"a": 1})


def test_split_keys_leaves_input_alone():
    d = {"a": 1, "b": 2}
    passed, rest = funcy.split_keys({"a"}, d)
    passed["z"] = 0
    rest.clear()
    assert d == {"a": 1, "b": 2}


def test_split_keys_calls_pred_once_per_key():
    seen = []

    def pred(k):
        seen.append(k)
        return k > 1

    assert funcy.split_keys(pred, {1: "a", 2: "b", 3: "c"}) == ({2: "b", 3: "c"}, {1: "a"})
    assert sorted(seen) == [1, 2, 3]


# ---- pass-to-pass: neighbouring helpers --------------------------------------------------


def test_select_keys_unchanged():
    assert select_keys(r"^_", {"_a": 1, "b": 2}) == {"_a": 1}
    assert select_keys(lambda k: k > 1, [(1, "a"), (2, "b")]) == [(2, "b")]
    dd = select_keys("a", defaultdict(int, a=1, b=2))
    assert isinstance(dd, defaultdict) and dd == {"a": 1}


def test_select_values_unchanged():
    assert select_values(lambda v: v % 2, {"a": 1, "b": 2, "c": 3}) == {"a": 1, "c": 3}


def test_lsplit_unchanged():
    assert lsplit(lambda x: x > 1, [0, 1, 2, 3]) == ([2, 3], [0, 1])
    assert lsplit(r"^a", ["ab", "ba", "ac"]) == (["ab", "ac"], ["ba"])


def test_existing_exports_unchanged():
    for name in ("select", "select_keys", "select_values", "split", "lsplit", "project", "omit"):
        assert name in funcy.__all__
