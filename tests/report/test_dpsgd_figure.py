"""Issue 32, item 8: the DP-SGD figure's proven delta(epsilon) band either comes from a route that
resolves every delta it plots, or its caption names the float lattice's floor where the band goes
flat (a band flat at the floor shows the engine, not DP-SGD)."""

from __future__ import annotations

import dataclasses
import re

from gdpproof.report.figures import Y_LOW, dpsgd_caption, dpsgd_data


def _floors_named(caption: str) -> list[float]:
    return [float(x) for x in re.findall(r"\d+(?:\.\d+)?e-\d+", caption)]


def test_the_band_resolves_what_it_plots_or_the_caption_names_its_floor():
    data = dpsgd_data()
    caption = dpsgd_caption(data)
    plotted = [(lo, hi) for lo, hi in zip(data.lower, data.upper) if hi >= Y_LOW]
    assert len(plotted) > 10  # the right panel shows the band over most of its epsilon range
    # flat at the floor: an upper end within twice the floor, where the lower end gives no support
    flat = [hi for lo, hi in plotted if hi <= 2 * data.floor]
    if flat:
        assert "floor" in caption and any(data.floor / 1.5 <= x <= 1.5 * data.floor for x in _floors_named(caption)), \
            f"the band goes flat at the float floor {data.floor:.2g} and the caption does not say so: {caption}"
    else:  # a route that reaches the plotted delta: a positive lower end at every plotted point
        assert all(lo > 0 for lo, _ in plotted)


def test_the_caption_follows_the_floor():
    data = dpsgd_data()
    moved = dataclasses.replace(data, floor=3.2e-8)
    assert any(2e-8 <= x <= 4e-8 for x in _floors_named(dpsgd_caption(moved)))
    assert not any(2e-8 <= x <= 4e-8 for x in _floors_named(dpsgd_caption(data)))
