"""Public-API usage type-checked by mypy in `make test` (a public-API usage file)."""

from decimal import Decimal
from fractions import Fraction

import numpy as np

import gdpproof

f: gdpproof.TradeOff = gdpproof.gaussian(Fraction(1, 2))
v: gdpproof.Certified = f.evaluate("0.05", digits=20)
d: Decimal = f.delta(1, digits=20)
r: gdpproof.ValidityReport = gdpproof.check_tradeoff(gdpproof.laplace(1))
ok: bool = r.ok
m: gdpproof.Certified = gdpproof.tightest_mu(gdpproof.randomized_response("0.5"), digits=10)
p: gdpproof.Certified = gdpproof.mu_from_points([("0.1", "0.5")], digits=10)
c: gdpproof.TradeOff = gdpproof.compose(gdpproof.gaussian(1), gdpproof.gaussian(2))
rr: gdpproof.TradeOff = gdpproof.self_compose(gdpproof.randomized_response(1), 10)
s: gdpproof.TradeOff = gdpproof.subsample(gdpproof.gaussian(1), "0.1")
fl: gdpproof.Functionals = gdpproof.functionals(gdpproof.gaussian(1), digits=10)
kl_value: gdpproof.Certified = fl.kl
band: gdpproof.BerryEsseenBand = gdpproof.berry_esseen([gdpproof.gaussian(1)], n=4, digits=10)
edge: gdpproof.Certified = band.lower("0.5", digits=10)
acc: gdpproof.DPSGDAccount = gdpproof.dpsgd_mu(1.1, "0.01", 100, delta="1e-5", digits=10, gamma=False)
approx: bool = acc.approximation
eps_lower: gdpproof.Certified | None = acc.eps_lower
verdict: str | None = acc.verdict
comp: gdpproof.ComposedLoss = gdpproof.compose_losses([(gdpproof.SubsampledGaussianLoss(1.0, 0.01), 100)])
bracket: gdpproof.Bound = comp.epsilon(1e-5)
upper: float = bracket.upper
honest: gdpproof.HonestMu = comp.honest_mu()
dp: gdpproof.DPSGDBracket = gdpproof.dpsgd_epsilon(1.0, 0.01, 100, 1e-5)
pair: tuple[gdpproof.Bound, gdpproof.ComposedLoss] = gdpproof.epsilon_bracket([(gdpproof.GaussianLoss(1), 3)], 1e-6)


def _s(rng: "np.random.Generator", n: int) -> "np.ndarray":
    return rng.standard_normal(n)


mech_audit: gdpproof.MechanismAudit = gdpproof.audit_mechanism(_s, _s, samples=1000, seed=1, claimed_mu=1)
mu_low: gdpproof.Certified = mech_audit.mu_low
violated: bool = mech_audit.violation

from gdpproof import audit, strategies  # noqa: E402

report: audit.AuditReport = audit.audit_function(lambda mu, eps: 0.5, "delta_from_epsilon", inputs=[(1.0, 1.0)])
audit_ok: bool = report.ok
worst: audit.Finding | None = report.worst("unsafe")
as_json: str = report.to_json()
peer_fn: audit.PeerFunction = audit.PeerFunction("mine", "epsilon_from_delta", lambda mu, d: 1.0)
mus = strategies.gdp_guarantees(max_mu=5.0)
configs = strategies.dpsgd_configurations(max_steps=100)

from gdpproof import mechanisms  # noqa: E402

model: mechanisms.Mechanism = gdpproof.Composed(gdpproof.Repeated(gdpproof.GaussianMechanism("10/3"), 10),
                                                gdpproof.LaplaceMechanism(10))
door: gdpproof.Account = gdpproof.account(model, delta="1e-5")
route: str = door.route
sentence: str = door.statement()
fields: dict[str, object] = door.to_dict()
steps_model: mechanisms.Repeated = gdpproof.dpsgd(1.0, 0.01, 100)
