"""Public-API usage type-checked by mypy in `make test` (STYLE §1.9)."""

from decimal import Decimal
from fractions import Fraction

import gdpproof

f: gdpproof.TradeOff = gdpproof.gaussian(Fraction(1, 2))
v: gdpproof.Certified = f.evaluate("0.05", digits=20)
d: Decimal = f.delta(1, digits=20)
r: gdpproof.ValidityReport = gdpproof.check_tradeoff(gdpproof.laplace(1))
ok: bool = r.ok
m: gdpproof.Certified = gdpproof.tightest_mu(gdpproof.randomized_response("0.5"), digits=10)
p: gdpproof.Certified = gdpproof.mu_from_points([("0.1", "0.5")], digits=10)
