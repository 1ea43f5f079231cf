"""``--trec`` output never prints an id that would break its whitespace-separated columns."""

from __future__ import annotations

import pandas as pd
import pytest

from retrieval_eval.cli import main
from retrieval_eval.errors import InputError
from retrieval_eval.frontends.trec_eval.run import trec_eval


@pytest.mark.parametrize("query_id", ["a\tb", "a b", "a\nb", "a\u3000b", "a\x85b", ""])
def test_a_query_id_with_whitespace_is_refused_in_per_query_lines(query_id: str) -> None:
    qrels = pd.DataFrame({"query_id": [query_id, "c"], "doc_id": ["d", "d"], "relevance": [1, 1]})
    run = pd.DataFrame({"query_id": [query_id, "c"], "doc_id": ["d", "d"], "score": [1.0, 1.0]})
    with pytest.raises(InputError, match="whitespace"):
        trec_eval(qrels, run, ["map"], per_query=True)
    # The summary lines print no query id: they stay printable.
    assert trec_eval(qrels, run, ["map"]).lines == ["map                   \tall\t1.0000"]


def test_the_cli_names_the_id_and_exits_2(tmp_path, capsys) -> None:
    frame = pd.DataFrame({"query_id": ["a\tb"], "doc_id": ["d"], "relevance": [1]})
    frame.to_parquet(tmp_path / "q.parquet")
    frame.rename(columns={"relevance": "score"}).assign(score=1.0).to_parquet(tmp_path / "r.parquet")
    code = main(["evaluate", str(tmp_path / "q.parquet"), str(tmp_path / "r.parquet"), "-m", "map", "--trec", "-q"])
    assert code == 2
    assert "'a\\tb'" in capsys.readouterr().err
