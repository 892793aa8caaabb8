import numpy as np

from app.core.decimate import minmax_envelope


def test_envelope_keeps_the_true_extremes_of_every_column():
    rng = np.random.default_rng(0)
    y = np.sin(np.arange(100003) * 2.9) + 0.01 * rng.standard_normal(100003)
    env = minmax_envelope(y, 777)
    assert len(env["low"]) <= 777
    assert env["start"][0] == 0 and env["stop"][-1] == len(y)
    np.testing.assert_array_equal(env["start"][1:], env["stop"][:-1])
    for c in range(len(env["low"])):
        column = y[env["start"][c] : env["stop"][c]]
        assert env["low"][c] == column.min() and env["high"][c] == column.max()


def test_striding_would_alias_but_the_envelope_does_not():
    y = np.cos(np.arange(20000) * (2 * np.pi / 10.01))  # period just over 10 samples
    strided = y[::10]  # a slow false wave
    env = minmax_envelope(y, 2000)
    assert np.ptp(strided[:50]) < 0.5
    assert np.all(env["high"] - env["low"] > 1.5)


def test_short_curves_pass_through():
    y = np.array([3.0, np.nan, 1.0])
    env = minmax_envelope(y, 10)
    assert env["low"][0] == 3.0 and np.isnan(env["low"][1]) and env["high"][2] == 1.0
