"""Write examples/scores_in.csv and examples/scores_out.csv: the attack scores of 2,000 held-in
canaries, N(2, 1), and 2,000 held-out canaries, N(0, 1) (numpy seed 2028).

Scores like these come from a mechanism that is exactly 2-GDP when each score is an independent
run of it: the shift between the two normal laws is the mu of the pair.  The files are what
``gdpproof audit scores --in examples/scores_in.csv --out examples/scores_out.csv`` reads (the
README and the command's --help use them); run this script to regenerate them, byte for byte.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

SEED = 2028
N = 2000
MU = 2.0


def main() -> None:
    rng = np.random.default_rng(SEED)
    held_in = rng.normal(MU, 1.0, N)
    held_out = rng.normal(0.0, 1.0, N)
    here = Path(__file__).resolve().parent
    for name, scores, law in (("scores_in.csv", held_in, f"N({MU:g}, 1)"), ("scores_out.csv", held_out, "N(0, 1)")):
        lines = [f"# {N} canary scores drawn from {law}, numpy seed {SEED}: examples/make_canary_scores.py",
                 "score"] + [repr(float(x)) for x in scores]
        (here / name).write_text("\n".join(lines) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
