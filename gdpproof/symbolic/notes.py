"""Texts that go with the symbolic results, kept apart from the formulas so that a numeric
answer can carry them without loading sympy."""

__all__ = ["APPROXIMATION_NOTE", "REAL_STEPS_NOTE"]

APPROXIMATION_NOTE = (
    "mu_clt is a central-limit approximation (Dong, Roth & Su 2022; Bu, Dong, Long & Su 2020), not a bound: "
    "for realistic (sigma, p, T) it can understate the true privacy loss, and eps_clt is not a guarantee. "
    "gamma is the Berry-Esseen error term (DRS Thm 3.5) of the T-fold per-step curve behind the formula, around "
    "G_mu_T with mu_T = 2 ||kl||_1 / sqrt(||kappa2||_1 - ||kl||_2^2) of that finite T (not around mu_clt, its "
    "T -> infinity limit); sigma in these formulas is the effective noise multiplier, the noise over the "
    "sensitivity (sigma/2 where the sensitivity is 2C). poisson: p G_1/sigma + (1-p) Id (one "
    "direction) is not symmetric, the theorem is "
    "stated for symmetric curves, so gamma is the error term of an approximation, not a bound; uniform: "
    "C_p(G_1/sigma) is symmetric and G_mu_T(a + gamma) - gamma <= its T-fold composition <= G_mu_T(a - gamma) + "
    "gamma is proven."
)

REAL_STEPS_NOTE = (
    "T is real here (the papers' T = E N / B, epochs times dataset size over batch size; Bu, Dong, Long & Su "
    "2020; TF Privacy's compute_mu_poisson): the CLT formula evaluated at a number of steps no run takes, the "
    "papers' approximation, not proven; the CLT itself understates the privacy loss in realistic settings, and "
    "no Berry-Esseen gamma or proven bracket belongs to a T that is not whole"
)
