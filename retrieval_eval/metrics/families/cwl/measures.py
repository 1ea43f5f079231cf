"""The measures of cwl_eval 1.0.12 as registry definitions: each a user model of the C/W/L framework.

Every measure has the five outputs of cwl_eval (``out=eu`` the default, ``etu``, ``ec``, ``etc``,
``ed``) and their residuals (``out=res_eu``... : the best case, unjudged documents and the ranks
past the list at gain 1, minus the worst case, at gain 0; cwl_eval's ``-r``). The depth is
cwl_eval's default, 1000 ranks; each element costs 1.

Gains, as ir_measures' cwl_eval provider maps labels: ``bin_rel=R`` (1 when label >= R, else 0;
the default, R = 1) or ``max_rel=M`` with ``min_rel`` (default 0): (clip(label, min_rel, max_rel)
- min_rel) / (max_rel - min_rel), negative labels taken as 0 in both. cwl_eval reads the label
itself as the gain: the same for labels 0 and 1 (and ``max_rel=1`` for labels in [0, 1]).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ....kernels.cwl import continuations as models
from ...definition import MetricDefinition

FAMILY = "cwl"
#: cwl_eval's default --max_depth.
DEPTH = 1000
#: The outputs a metric may ask for (``out=``): cwl_eval's five, then their residuals.
OUTS = ("eu", "etu", "ec", "etc", "ed", "res_eu", "res_etu", "res_ec", "res_etc", "res_ed")
#: The gain parameters every measure takes; "none" (never a valid value) marks one left out.
GAIN_PARAMS = (("bin_rel", "1.0"), ("min_rel", "none"), ("max_rel", "none"), ("out", "eu"))


@dataclass(frozen=True)
class CwlMeasure:
    """One of cwl_eval's measure classes.

    ``name``: the registry name; ``cwl_class``: cwl_eval's class; ``model``: its C/W kernel;
    ``params``: the registry parameters ``(key, default)`` passed on to ``model`` as floats in
    order (after the cutoff k when ``cutoff``); ``unit_gains``: cwl_eval refuses gains outside
    [0, 1] for it (INST, NERR); ``text``: what it is.
    """

    name: str
    cwl_class: str
    model: Callable[..., models.Model]
    text: str
    params: tuple[tuple[str, str], ...] = ()
    cutoff: bool = False
    unit_gains: bool = False


MEASURES = (
    CwlMeasure("cwl_p", "PrecisionCWLMetric", models.precision,
               "P@k: C(i) = 1 for i < k-1, else 0; EU is graded precision at k (gain sum over k); "
               "trec_eval's P@k is binary at rel (the same for 0/1 gains).", cutoff=True),
    CwlMeasure("cwl_rr", "RRCWLMetric", models.reciprocal_rank,
               "RR: C(i) = 1 before the first rank with gain > 0; EU = gain of that rank / its rank "
               "(1/rank for 0/1 gains, as trec_eval's recip_rank)."),
    CwlMeasure("cwl_ap", "APCWLMetric", models.average_precision,
               "AP: C(i) = S(i+1)/S(i) with S(i) = sum_{j>=i} g(j)/(j+1); EU = sum_i g(i) S(i) / sum_j g(j), "
               "average precision over the relevant documents retrieved (within 1000 ranks); trec_eval's map "
               "divides by all relevant documents of the qrels, so cwl_ap >= map, equal when all are retrieved."),
    CwlMeasure("cwl_rbp", "RBPCWLMetric", models.rbp,
               "RBP: C(i) = theta; EU = sum_i g(i) theta^i (1 - theta) / (1 - theta^1000), Moffat and Zobel's "
               "RBP with W normalized over 1000 ranks.", params=(("theta", "0.9"),)),
    CwlMeasure("cwl_inst", "INSTCWLMetric", models.inst,
               "INST: C(i) = ((i+1 + T + T_i - 1)/(i+1 + T + T_i))^2, T_i = T - sum_{j<=i} g(j) (gains in [0, 1]).",
               params=(("t", "1.0"),), unit_gains=True),
    CwlMeasure("cwl_insq", "INSQCWLMetric", models.insq,
               "INSQ: C(i) = ((i+1 + 2T - 1)/(i+1 + 2T))^2.", params=(("t", "1.0"),)),
    CwlMeasure("cwl_ndcg", "NDCGCWLMetric", models.sdcg,
               "NDCG-k of cwl_eval, scaled DCG (ir_measures' SDCG): EU = sum_{i<=k} g(i)/log2(i+1) / "
               "sum_{i<=k} 1/log2(i+1), normalized by the discounts, not by the ideal ranking as trec_eval's "
               "ndcg_cut.", cutoff=True),
    CwlMeasure("cwl_bpm", "BPMCWLMetric", models.bpm,
               "BPM static: C(i) = 1 while sum_{j<=i} g(j) < T and sum_{j<=i} c(j) < k (k the cost budget).",
               params=(("t", "1.0"),), cutoff=True),
    CwlMeasure("cwl_bpm_dynamic", "BPMDCWLMetric", models.bpm_dynamic,
               "BPM dynamic: as static with T moved by hb (g(i) - gain_med) after each rank; cwl_eval 1.0.12 "
               "never moves the cost budget k, so hc has no effect.",
               params=(("t", "1.0"), ("hb", "1.0"), ("hc", "1.0"), ("gain_med", "0.5")), cutoff=True),
    CwlMeasure("cwl_nerr8", "NERReq8CWLMetric", models.nerr8,
               "NERR eq. 8: C(i) = 1 - g(i) for i < k-1, else 0 (gains in [0, 1]).", cutoff=True, unit_gains=True),
    CwlMeasure("cwl_nerr9", "NERReq9CWLMetric", models.nerr9,
               "NERR eq. 9: C(i) = (i+1)/(i+2) (1 - g(i)) for i < k-1, else 0 (gains in [0, 1]).",
               cutoff=True, unit_gains=True),
    CwlMeasure("cwl_nerr10", "NERReq10CWLMetric", models.nerr10,
               "NERR eq. 10: C(i) = phi (1 - g(i)) (gains in [0, 1]).", params=(("phi", "0.9"),), unit_gains=True),
    CwlMeasure("cwl_nerr11", "NERReq11CWLMetric", models.nerr11,
               "NERR eq. 11: C(i) = ((i+1 + 2T - 1)/(i+1 + 2T))^2 (1 - g(i)) (gains in [0, 1]).",
               params=(("t", "1.0"),), unit_gains=True),
    CwlMeasure("cwl_npv", "NPVCWLMetric", models.npv,
               "NPV: C(i) = 1/(1 + rate), RBP with theta = 1/(1 + rate).", params=(("rate", "0.1"),)),
    CwlMeasure("cwl_set", "SETCWLMetric", models.set_measure,
               "SET: C(i) = w(i+1)/w(i) for i+1 < k, else 0, w(i) = (i+1)^beta - i^beta.",
               params=(("beta", "0.5"),), cutoff=True),
    CwlMeasure("cwl_tbg", "TBGCWLMetric", models.tbg,
               "TBG: W(i) proportional to D(sum_{j<i} c(j)), D(x) = h 2^(-x/h) / ln 2, normalized over 1000 ranks.",
               params=(("halflife", "224.0"),)),
    CwlMeasure("cwl_umeasure", "UMeasureCWLMetric", models.umeasure,
               "U-measure: W(i) proportional to max(0, 1 - sum_{j<i} c(j) / L) for i < 999, W(999) = 0.",
               params=(("l", "1000.0"),)),
    CwlMeasure("cwl_ift_goal", "IFTGoalCWLMetric", models.ift_goal,
               "IFT goal: C(i) = 1 - 1/(1 + b1 e^((T - G(i)) r1)), G(i) the gain so far.",
               params=(("t", None), ("b1", None), ("r1", None))),
    CwlMeasure("cwl_ift_rate", "IFTRateCWLMetric", models.ift_rate,
               "IFT rate: C(i) = 1/(1 + b2 e^((a - G(i)/K(i)) r2)), K(i) the cost so far.",
               params=(("a", None), ("b2", None), ("r2", None))),
    CwlMeasure("cwl_ift", "IFTGoalRateCWLMetric", models.ift_goal_rate,
               "IFT goal and rate: C(i) = C1(i) C2(i) of cwl_ift_goal and cwl_ift_rate.",
               params=(("t", None), ("b1", None), ("r1", None), ("a", None), ("b2", None), ("r2", None))),
)

BY_NAME = {measure.name: measure for measure in MEASURES}


def definitions(extract: Callable) -> tuple[MetricDefinition, ...]:
    """The registry definitions of :data:`MEASURES`, their values taken by ``extract``."""
    common = (
        " Outputs (out=): eu (expected utility per item, the default), etu (expected total utility), ec (expected "
        "cost per item), etc (expected total cost), ed (expected depth), res_* their residuals; gains: binary at "
        "bin_rel (default 1), or scaled by max_rel=M (min_rel); depth 1000, unit costs, as cwl_eval 1.0.12."
    )
    return tuple(
        MetricDefinition(
            measure.name, FAMILY, measure.text + common, higher_is_better=True, cutoff=measure.cutoff,
            params=measure.params + GAIN_PARAMS, extract=extract,
        )
        for measure in MEASURES
    )
