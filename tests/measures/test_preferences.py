"""trec_eval's preference measures on examples worked by hand: transitivity across sub-groups, groups that
disagree, the Rnonrel padding and cut, and inconsistent groups refused. tests/cli/test_conformance_trec_eval.py
checks every measure byte for byte against trec_eval's expected output for its prefs and qrels_prefs tests."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from judged.errors import InputError
from judged.measures.preferences import PREFERENCE_MEASURES, QueryPreferences, preference_value


def values(ranked, rows):
    query = QueryPreferences.of(ranked, rows)
    return {name: preference_value(name, query) for name in PREFERENCE_MEASURES}


def test_sub_groups_combine_transitively():
    # s1: a > b; s2: b > c. The group prefers a > b, b > c and (transitively) a > c: 3 preferences.
    rows = [("u", "s1", "a", 2.0), ("u", "s1", "b", 1.0), ("u", "s2", "b", 2.0), ("u", "s2", "c", 1.0)]
    got = values(["c", "b", "a"], rows)  # the reverse order: every preference broken
    assert got["prefs_num_prefs_poss"] == 3 and got["prefs_num_prefs_ful"] == 0
    got = values(["a", "b"], rows)  # a > b retrieved and fulfilled; a > c, b > c implied and fulfilled
    assert (got["prefs_num_prefs_ful"], got["prefs_num_prefs_ful_ret"], got["prefs_simp"]) == (3, 1, 1.0)


def test_groups_that_disagree_count_per_pair():
    # u1: a > b; u2: b > a; u3: a > b. The run ranks a first: 2 of 3 preferences on the one pair hold.
    rows = [("u1", "s", "a", 1.0), ("u1", "s", "b", 0.0), ("u2", "s", "b", 1.0), ("u2", "s", "a", 0.0),
            ("u3", "s", "a", 1.0), ("u3", "s", "b", 0.0)]
    got = values(["a", "b"], rows)
    assert got["prefs_simp"] == pytest.approx(2 / 3)  # 2 fulfilled of 3
    assert got["prefs_pair"] == pytest.approx(2 / 3)  # one pair, 2 of its 3 groups fulfilled
    assert got["prefs_avgjg"] == pytest.approx(2 / 3)  # (1 + 0 + 1) / 3 groups


def test_pairs_with_neither_document_retrieved_count_as_unfulfilled():
    rows = [("u", "s", "a", 2.0), ("u", "s", "b", 1.0), ("u", "s", "c", 0.0)]
    got = values(["a"], rows)  # a>b, a>c implied fulfilled; b>c neither retrieved
    assert got["prefs_pair"] == pytest.approx(2 / 3)
    assert got["prefs_pair_imp"] == 1.0  # the pair of unretrieved documents is ignored
    assert got["prefs_pair_ret"] == 0.0  # no pair has both retrieved


def test_rnonrel_keeps_as_many_nonrelevant_as_relevant():
    # one relevant a (level 1) and three non-relevant n1..n3 (level 0); the run ranks n1, a, n2, n3.
    rows = [("u", "s", "a", 1.0)] + [("u", "s", f"n{i}", 0.0) for i in (1, 2, 3)]
    got = values(["n1", "a", "n2", "n3"], rows)
    # all three a > n_i: n1 above a breaks one, 2 of 3 fulfilled
    assert got["prefs_simp"] == pytest.approx(2 / 3)
    # R = 1 < N = 3: only the first non-relevant by rank (n1) is kept. trec_eval's recount then pairs a with
    # n1 (broken) and, as its loop also runs over the non-relevant class itself, n1..n3 with n1: n1-n1 is not
    # fulfilled (not ranked before itself), n2 and n3 come after n1, so 0 fulfilled of 1 + 3 pairs.
    assert got["prefs_avgjg_Rnonrel"] == 0.0
    got = values(["a", "n1", "n2", "n3"], rows)
    # a before n1: fulfilled; n1-n1 not; n2, n3 after n1: not: 1 of 4
    assert got["prefs_avgjg_Rnonrel"] == pytest.approx(1 / 4)


def test_rnonrel_pads_when_fewer_nonrelevant_than_relevant():
    rows = [("u", "s", "a", 2.0), ("u", "s", "b", 1.0), ("u", "s", "n", 0.0)]
    got = values(["a", "b", "n"], rows)
    # all 3 preferences fulfilled; R = 2 > N = 1 adds rel_ret * (R - N) = 2 fulfilled of R * (R - N) = 2
    assert got["prefs_avgjg_Rnonrel"] == 1.0
    got = values(["n", "b", "a"], rows)  # all 3 broken: (0 + 2) / (3 + 2)
    assert got["prefs_avgjg_Rnonrel"] == pytest.approx(2 / 5)


def test_tied_scores_and_unretrieved_documents_take_docid_order():
    # unretrieved judged documents rank after the retrieved ones in byte order of docid: b (rank 1) before c
    query = QueryPreferences.of(["z"], [("u", "s", "c", 1.0), ("u", "s", "b", 0.0)])
    assert (query.judged, query.judged_retrieved) == (2, 0)
    assert query.groups[0].ranks.tolist() == [0, 1]


def test_an_inconsistent_group_is_refused():
    rows = [("u", "s1", "a", 2.0), ("u", "s1", "b", 1.0), ("u", "s2", "b", 2.0), ("u", "s2", "a", 1.0)]
    with pytest.raises(InputError, match="judgment group 'u' prefers 'a' to 'b' and the reverse"):
        QueryPreferences.of(["a", "b"], rows)
    rows = [("u", "s1", "a", 2.0), ("u", "s1", "b", 0.0), ("u", "s2", "b", 1.0), ("u", "s2", "c", 0.0)]
    with pytest.raises(InputError, match="document 'b' is judged non-relevant"):
        QueryPreferences.of(["a"], rows)


@given(st.lists(st.integers(0, 3), min_size=2, max_size=7), st.permutations(range(7)), st.integers(0, 7))
@settings(max_examples=60, deadline=None)
def test_one_sub_group_and_its_pairs_as_sub_groups_count_alike(levels, order, retrieved):
    """A group given as one sub-group (trec_eval's equivalence classes) and the same preferences given pair by
    pair, one sub-group each (its preference-array path, closed transitively), count the same preferences."""
    docs = [f"d{i}" for i in range(len(levels))]
    whole = [("u", "s", d, float(v)) for d, v in zip(docs, levels, strict=True)]
    pairs = [("u", f"s{i}-{j}", d, float(v)) for i, (a, x) in enumerate(zip(docs, levels, strict=True))
             for j, (b, y) in enumerate(zip(docs, levels, strict=True)) if x > y for d, v in ((a, x), (b, y))]
    if not pairs:
        return
    ranked = [docs[i] for i in order if i < len(docs)][:retrieved]
    one, split = QueryPreferences.of(ranked, whole), QueryPreferences.of(ranked, pairs)
    assert one.counts.tolist() == split.counts.tolist()
    for name in ("prefs_simp", "prefs_pair", "prefs_avgjg", "prefs_simp_ret", "prefs_pair_imp"):
        assert preference_value(name, one) == preference_value(name, split)
