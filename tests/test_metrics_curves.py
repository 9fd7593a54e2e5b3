"""Time normalisation, merging and averaging of FFA curves on hand-made event lists."""

import math

import numpy as np
import pytest

from fxai.metrics.curves import (
    average,
    average_instances,
    axp_steps,
    instance_curves,
    merge,
    sample,
    steps_curves,
    time_scale,
)

EXACT = {0: 0.5, 1: 0.5}  # AXps {0} and {1}
RUN_A = [[0.5, "axp", [0]], [1.0, "cxp", [1]], [2.0, "axp", [1]]]
RUN_B = [[1.0, "cxp", [0]], [4.0, "axp", [1]], [4.0, "axp", [0]], [6.0, "cxp", [1]]]


def test_axp_steps_count_only_axps():
    steps = axp_steps(RUN_A)
    assert [(t, n) for t, _, n in steps] == [(0.5, 1), (2.0, 2)]
    assert list(axp_steps(iter(RUN_A))) == list(steps)  # one pass over an iterator
    assert steps[0][1] == {0: 1.0} and steps[1][1] == EXACT


def test_axp_steps_thinned_keep_first_last_and_all_counts():
    run = [[float(i), "axp", [i % 3, 3]] for i in range(10)] + [[10.0, "cxp", [0]]]
    full = axp_steps(run)
    thin = axp_steps(run, max_points=4)
    assert [n for _, _, n in thin] == [1, 4, 7, 10]
    assert list(thin) == [full[n - 1] for _, _, n in thin]
    assert thin[-1][1] == {0: 0.4, 1: 0.3, 2: 0.3, 3: 1.0}
    assert list(axp_steps(run, max_points=50)) == list(full)
    assert thin.t_max == 9.0 and thin.n_total == 10


def test_time_scale_is_last_axp_time_not_runtime():
    assert time_scale({"a": RUN_A, "b": RUN_B}) == 4.0  # B's CXp at 6 does not count
    assert time_scale({"a": [[0.0, "axp", [0]]]}) == 1.0
    assert time_scale({"a": []}) == 1.0


def test_error_curves_normalised_and_merged():
    c = instance_curves({"a": RUN_A, "b": RUN_B}, EXACT, 2)["error"]
    np.testing.assert_allclose(c["a"][0], [0, 0.125, 0.5])
    np.testing.assert_allclose(c["a"][1], [1, 1, 0])
    np.testing.assert_allclose(c["b"][0], [0, 1, 1])
    grid, mat = merge([c["a"], c["b"]])
    np.testing.assert_allclose(grid, [0, 0.125, 0.5, 1])
    np.testing.assert_allclose(mat, [[1, 1, 0, 0], [1, 1, 1, 0]])  # tied times: last value
    np.testing.assert_allclose(average([c["a"], c["b"]])[1], [1, 1, 0.5, 0])


def test_sample_holds_last_and_uses_first_before_start():
    curve = (np.array([0.2, 0.5]), np.array([3.0, 7.0]))
    np.testing.assert_allclose(sample(curve, np.array([0.0, 0.2, 0.3, 0.5, 9.0])),
                               [3, 3, 3, 7, 7])


def test_naxp_paper_vs_code_on_timed_out_run():
    timed_out = [[0.2, "axp", [0]]]
    paper = instance_curves({"a": RUN_A, "t": timed_out}, EXACT, 2)["naxp"]
    code = instance_curves({"a": RUN_A, "t": timed_out}, EXACT, 2, variant="code")["naxp"]
    np.testing.assert_allclose(paper["t"][1], [0, 0.5])   # of the exact number of AXps
    np.testing.assert_allclose(code["t"][1], [0, 1.0])    # of the run's own number
    np.testing.assert_allclose(paper["a"][1], [0, 0.5, 1])


def test_kl_infinity_paper_half_code_twice_max():
    exact = {0: 0.5, 1: 1.0}  # AXps {0, 1} and {1}
    run1 = [[1.0, "axp", [0, 1]], [2.0, "axp", [1]]]
    run2 = [[1.0, "axp", [1]], [3.0, "axp", [0, 1]]]
    kl1 = 1 / 3 * math.log(2 / 3) + 2 / 3 * math.log(4 / 3)
    paper = instance_curves({"1": run1, "2": run2}, exact, 2)["kl"]
    np.testing.assert_allclose(paper["1"][1], [0.5, kl1, 0])  # t = 0: empty FFA -> 0.5
    np.testing.assert_allclose(paper["2"][1], [0.5, 0.5, 0])
    code = instance_curves({"1": run1, "2": run2}, exact, 2, variant="code")["kl"]
    np.testing.assert_allclose(code["1"][0], [1 / 3, 2 / 3])  # no t = 0 point
    np.testing.assert_allclose(code["2"][1], [2 * kl1, 0])


def test_tau_and_rbo_start_at_empty_ffa():
    exact, run = {0: 1.0, 1: 0.5}, [[1.0, "axp", [0]], [2.0, "axp", [0, 1]]]
    c = instance_curves({"a": run}, exact, 2)
    np.testing.assert_allclose(c["tau"]["a"][1], [0, 1, 1])
    np.testing.assert_allclose(c["rbo"]["a"][1][[0, 2]], [0, 1])
    code = instance_curves({"a": run}, exact, 2, variant="code")
    np.testing.assert_allclose(code["tau"]["a"][1], [-1, 1, 1])  # all tied vs strict order
    # an all-tied exact FFA: the empty FFA ties everything too (paper 1, code concordant)
    assert instance_curves({"a": RUN_A}, EXACT, 2)["tau"]["a"][1][0] == 1.0


def test_average_instances_and_code_kl_plateau():
    i1 = instance_curves({"a": RUN_A, "b": RUN_B}, EXACT, 2)
    i2 = instance_curves({"a": RUN_B, "b": RUN_A}, EXACT, 2)
    avg = average_instances([i1, i2])
    assert set(avg) == {"error", "tau", "rbo", "kl", "naxp"} and set(avg["error"]) == {"a", "b"}
    np.testing.assert_allclose(avg["error"]["a"][1], avg["error"]["b"][1])
    t, v = average([(np.array([0.0, 1.0, 2.0]), np.array([3.0, 3.0, 1.0]))], lead_value=0.5)
    np.testing.assert_allclose(v, [0.5, 0.5, 1.0])


def test_a_subset_of_metrics_gives_those_curves_unchanged():
    steps = {"a": axp_steps(RUN_A), "b": axp_steps(RUN_B)}
    full = steps_curves(steps, EXACT, 2)
    only = steps_curves(steps, EXACT, 2, metrics=("error", "kl"))
    assert list(only) == ["error", "kl"]
    for metric in only:
        for m in steps:
            np.testing.assert_array_equal(only[metric][m][1], full[metric][m][1])
    assert list(average_instances([only, only])) == ["error", "kl"]
    with pytest.raises(ValueError, match="unknown metrics"):
        steps_curves(steps, EXACT, 2, metrics=("error", "speed"))


def test_zero_exact_ffa_gives_zero_error():
    c = instance_curves({"a": [[0.0, "axp", []]]}, {}, 1)["error"]
    np.testing.assert_allclose(c["a"][1], [0, 0])


def test_thinning_keeps_first_last_and_counts():
    run = [[0.1 * i, "axp", [i % 3]] for i in range(1, 101)]
    exact = {0: 1 / 3, 1: 1 / 3, 2: 1 / 3}
    full = instance_curves({"a": run}, exact, 100)["naxp"]["a"]
    thin = instance_curves({"a": run}, exact, 100, max_points=10)["naxp"]["a"]
    assert full[0].size == 101 and thin[0].size == 11  # the t = 0 point + 10 AXps
    np.testing.assert_allclose(thin[1][[1, -1]], [0.01, 1.0])
    np.testing.assert_allclose(thin[0][[1, -1]], full[0][[1, -1]])
