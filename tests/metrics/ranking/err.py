"""err: the cascade's expected reciprocal rank, summed position by position:
ERR@k = Σ_{p <= k} (1/p)·R_p·Π_{i<p}(1 − R_i), R = (2^min(rel, M) − 1)/2^M. Checked also
against ir_measures' ERR@k (gdeval, the TREC Web track's script, M = 4), which prints
five decimals."""

import ir_measures

from metrics.ranking._common import top


def PER_ORDER(ranked, judged, p):
    scale = 2.0**p.max_relevance
    err, survive = 0.0, 1.0
    for position, label in enumerate(top(ranked, p), start=1):
        stop = (2.0 ** min(label, p.max_relevance) - 1) / scale
        err += survive * stop / position
        survive *= 1 - stop
    return err


EXTERNAL_TOLERANCE = 5e-6 + 1e-12  # gdeval rounds to 5 decimals


def EXTERNAL(run, judgments, k):
    """gdeval's ERR@k per query of the run that has judgments (its default M = 4). gdeval
    takes numeric topic ids only: each query is numbered."""
    number = {query: str(n) for n, query in enumerate(sorted({*run["query"], *judgments["query"]}))}
    qrels = [ir_measures.Qrel(number[q], str(i), int(label)) for q, i, label in judgments.iter_rows()]
    judged = {qrel.query_id for qrel in qrels}
    rows = run.select("query", "item", "score").iter_rows()
    scored = [ir_measures.ScoredDoc(number[q], str(i), float(s)) for q, i, s in rows if number[q] in judged]
    if not scored:  # gdeval exits with an error on an empty run
        return {}
    values = {m.query_id: m.value for m in ir_measures.iter_calc([ir_measures.ERR @ k], qrels, scored)}
    return {query: values.get(n, 0.0) for query, n in number.items() if n in {doc.query_id for doc in scored}}
