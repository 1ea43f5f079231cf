"""trec_eval's -Z: the z-scores file as get_zscores.c reads it, values converted as convert_zscores.c does.

The differential test writes z-scores files for measures whose per-query values trec_eval prints
exactly at 4 decimals (counts, precision at 5), so the binary's unconverted output gives the
doubles it converted; every converted line must then match its -Z output.
"""

from __future__ import annotations

import gzip
import subprocess

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from retrieval_eval import EvaluationOptions, Evaluator
from retrieval_eval.errors import InputError
from retrieval_eval.io.zscores import MISSING_ZSCORE, read_zscores
from retrieval_eval.metrics.registry import REGISTRY

_MEASURES = ("P_5", "num_rel", "num_ret")  # P_5 = k/5: "0.4000" reads back as the double trec_eval divided


def _write(tmp_path, text: str, name: str = "zscores"):
    path = tmp_path / name
    path.write_bytes(text.encode())
    return path


def test_conversion_rules(tmp_path):
    zscores = read_zscores(_write(tmp_path, "301 map 0.25 0.5\n301 num_rel 10 0\n\t302  map  -1e-1\t2.5E0 \r\n"))
    assert zscores.convert("301", "map", 0.5) == (0.5 - 0.25) / 0.5
    assert zscores.convert("302", "map", 0.4) == (0.4 - -0.1) / 2.5
    assert zscores.convert("301", "num_rel", 10.0) == 0.0  # stddev 0, the mean itself
    assert zscores.convert("301", "num_rel", 11.0) == MISSING_ZSCORE  # stddev 0, another value
    assert zscores.convert("301", "P_5", 0.2) == MISSING_ZSCORE  # no line for the pair
    assert zscores.convert("300", "map", 0.5) == MISSING_ZSCORE  # no line for the query


def test_a_measure_past_its_querys_takes_the_next_querys_first(tmp_path):
    # trec_eval's search reads one entry past the query's measures: 302 has no num_ret line, and
    # num_ret sorts after its P_5, so 302 is converted with 303's num_ret (its first measure).
    zscores = read_zscores(_write(tmp_path, "303 num_ret 400 50\n302 P_5 0.5 0.25\n303 zzz 0 1\n"))
    assert zscores.convert("302", "num_ret", 500.0) == (500.0 - 400) / 50
    assert zscores.convert("302", "num_rel", 500.0) == MISSING_ZSCORE  # not 303's first measure
    assert zscores.convert("303", "zzzz", 1.0) == MISSING_ZSCORE  # past the last query: trec_eval crashes
    assert zscores.convert("304", "num_ret", 1.0) == MISSING_ZSCORE  # past the last qid: trec_eval crashes


def test_hash_lines_are_data_and_gzip_is_read(tmp_path):
    path = tmp_path / "z.gz"
    path.write_bytes(gzip.compress(b"# map 1 2\n"))
    assert read_zscores(path).convert("#", "map", 3.0) == 1.0


@pytest.mark.parametrize(
    "text, line, message",
    [
        ("301 map 0.1\n", 1, "expected 4 whitespace-separated fields"),
        ("301 map 0.1 0.2 x\n", 1, "expected 4 whitespace-separated fields"),
        ("301 map 0.1 0.2\n\n302 map 0 1\n", 2, "found 0"),
    ],
)
def test_malformed_lines_as_trec_eval_refuses_them(trec_eval_binary, trec_eval_test, tmp_path, text, line, message):
    path = _write(tmp_path, text)
    done = subprocess.run(
        [str(trec_eval_binary), "-m", "map", "-Z", str(path), str(trec_eval_test / "qrels.test"), str(trec_eval_test / "results.test")],
        capture_output=True, text=True,
    )
    assert f"Malformed line {line}" in done.stderr
    with pytest.raises(InputError, match=message) as excinfo:
        read_zscores(path)
    assert excinfo.value.row == line and str(path) in str(excinfo.value)


@pytest.mark.parametrize(
    "text, line, message",
    [
        ("301 map abc 1\n", 1, "mean must be a finite decimal number"),  # trec_eval's atof: 0
        ("301 map 0 nan\n", 1, "stddev must be a finite decimal number"),
        ("301 map 0 1_0\n", 1, "stddev must be a finite decimal number"),
        ("301 map 0 1\n302 map 0 1\n301 map 1 2\n", 3, "given twice .also line 1."),  # trec_eval: either line
        ("", None, "empty file"),
    ],
)
def test_what_trec_eval_leaves_undefined_is_an_error(tmp_path, text, line, message):
    with pytest.raises(InputError, match=message) as excinfo:
        read_zscores(_write(tmp_path, text))
    assert excinfo.value.row == line


def _trec_eval_lines(binary, test, *flags) -> list[list[str]]:
    done = subprocess.run(
        [str(binary), "-q", "-m", "P.5", "-m", "num_rel", "-m", "num_ret", *flags,
         str(test / "qrels.test"), str(test / "results.test")],
        capture_output=True, text=True, check=True,
    )
    return [line.split("\t") for line in done.stdout.splitlines()
            if "\tall\t" not in line and not line.startswith(("runid", "Znum_q", "num_q"))]


_STAT = st.sampled_from(["0", "0.5", "-1.25", "3", "10", "77", "474", "500", "0.4", "1e2"])


@settings(max_examples=10)
@given(
    pairs=st.lists(st.tuples(st.sampled_from(["300", "301", "302", "303", "3010"]), st.sampled_from(_MEASURES), _STAT, _STAT),
                   unique_by=lambda pair: pair[:2], max_size=12),
)
def test_converts_as_the_binary_does(trec_eval_binary, trec_eval_test, tmp_path_factory, pairs):
    # A last entry that sorts after every query and measure: trec_eval's search never reads past its tables.
    text = "".join(f"{q} {m} {mean} {stddev}\n" for q, m, mean, stddev in pairs) + "999 zzz 0 1\n"
    path = _write(tmp_path_factory.mktemp("z"), text)
    zscores = read_zscores(path)
    expected = [
        [f"Z{name.strip()}", query, f"{zscores.convert(query, name.strip(), float(value)):6.4f}"]
        for name, query, value in _trec_eval_lines(trec_eval_binary, trec_eval_test)
    ]
    got = [[name.strip(), query, value] for name, query, value in _trec_eval_lines(trec_eval_binary, trec_eval_test, "-Z", str(path))]
    assert got == expected


def test_out_test_aqz_for_the_measures_at_hand(trec_eval_test):
    # The z-scores of trec_eval's own -Z test, for the measures our TREC family computes, from our values.
    names = {"map": "map", "P_5": "P@5", "P_100": "P@100", "recall_10": "recall@10", "ndcg": "ndcg", "bpref": "bpref",
             "num_rel": "num_rel", "num_ret": "num_ret", "recip_rank": "recip_rank", "ndcg_cut_10": "ndcg@10"}
    options = EvaluationOptions(query_set="both", qrels_duplicates="raise", run_duplicates="raise")
    result = Evaluator(trec_eval_test / "qrels.test", list(names.values()), options=options).evaluate(trec_eval_test / "results.test")
    zscores = read_zscores(trec_eval_test / "zscores_file")
    ours = {
        f"Z{printed:<22}\t{query}\t{zscores.convert(query, printed, float(value)):6.4f}"
        for printed, metric in names.items()
        for query, value in zip(result.query_ids.to_pylist(), result.values(REGISTRY.parse(metric)))
    }
    expected = {line for line in (trec_eval_test / "out.test.aqZ").read_text().splitlines()
                if line.split("\t")[0].strip()[1:] in names and "\tall\t" not in line}
    assert len(ours) == 3 * len(names) and ours == expected

