"""The Opacus adapter: a training loop's steps give the proven upper end of gdpproof.account for
the same run; history, state dict and registry behave as Opacus's own accountants do.

The only test module that imports torch (through Opacus); skipped where Opacus is not installed
(the ``opacus`` extra installs it with a CPU build of torch).
"""

from __future__ import annotations

import math

import pytest

from gdpproof import account
from gdpproof.errors import InvalidParameterError, NotSupportedError
from gdpproof.integrations._common import proven_upper
from gdpproof.mechanisms import Composed, EpsDelta, dpsgd


opacus = pytest.importorskip("opacus")
torch = pytest.importorskip("torch")

from opacus.accountants import IAccountant, RDPAccountant, create_accountant  # noqa: E402
from opacus.accountants.utils import get_noise_multiplier  # noqa: E402

from gdpproof.integrations.opacus import GdpproofAccountant, register  # noqa: E402

DELTA = 1e-5
STEPS = [(1.0, 0.05)] * 20 + [(1.5, 0.1)] * 10 + [(1.0, 0.05)] * 5


def test_the_accountant_is_an_opacus_accountant():
    acc = GdpproofAccountant()
    assert isinstance(acc, IAccountant) and GdpproofAccountant.mechanism() == "gdpproof"
    assert acc.get_epsilon(DELTA) == 0.0 and len(acc) == 0


def test_a_loop_of_steps_gives_the_upper_end_of_account():
    ours, rdp = GdpproofAccountant(), RDPAccountant()
    for sigma, q in STEPS:
        ours.step(noise_multiplier=sigma, sample_rate=q)
        rdp.step(noise_multiplier=sigma, sample_rate=q)
    assert ours.history == rdp.history == [(1.0, 0.05, 20), (1.5, 0.1, 10), (1.0, 0.05, 5)]
    assert len(ours) == 35
    run = Composed(dpsgd(1.0, 0.05, 20), dpsgd(1.5, 0.1, 10), dpsgd(1.0, 0.05, 5))
    assert ours.as_mechanism() == run
    eps = ours.get_epsilon(DELTA)
    a = account(run, delta=DELTA)
    assert eps == proven_upper(a) and float(a.eps_lower) <= eps <= rdp.get_epsilon(DELTA)
    # Opacus's calibration sets the history directly; one group is gdpproof's dpsgd exactly
    ours.history = [(1.0, 0.05, 25)]
    assert ours.get_epsilon(DELTA, alphas=[2, 4]) == proven_upper(account(dpsgd(1.0, 0.05, 25), delta=DELTA))


def test_state_dict_round_trip():
    acc = GdpproofAccountant()
    for sigma, q in STEPS[:25]:
        acc.step(noise_multiplier=sigma, sample_rate=q)
    state = acc.state_dict()
    assert state["mechanism"] == "gdpproof" and state["history"] == acc.history
    again = GdpproofAccountant()
    again.load_state_dict(state)
    assert again.history == acc.history and again.get_epsilon(DELTA) == acc.get_epsilon(DELTA)
    with pytest.raises(ValueError, match="gdpproof"):
        RDPAccountant().load_state_dict(state)


def test_refusals():
    acc = GdpproofAccountant()
    with pytest.raises(InvalidParameterError, match="noise_multiplier=-1.0"):
        acc.step(noise_multiplier=-1.0, sample_rate=0.01)
    with pytest.raises(InvalidParameterError, match="sample_rate=1.5"):
        acc.step(noise_multiplier=1.0, sample_rate=1.5)
    assert acc.history == []
    acc.step(noise_multiplier=1.0, sample_rate=0.01)
    with pytest.raises(InvalidParameterError, match="poisson"):
        acc.get_epsilon(DELTA, poisson="no")
    with pytest.raises(InvalidParameterError, match="rel_width"):
        GdpproofAccountant(rel_width=0)
    # no noise: the sampled record is revealed, with probability q per step
    acc.step(noise_multiplier=0.0, sample_rate=0.01)
    assert acc.as_mechanism() == Composed(dpsgd(1.0, 0.01, 1).mechanism, EpsDelta(0, 0.01))
    assert acc.get_epsilon(DELTA) == math.inf


def test_privacy_engine_trains_with_it_and_opacus_calibrates_with_it():
    register()
    assert isinstance(create_accountant("gdpproof"), GdpproofAccountant)
    torch.manual_seed(20240601)
    x, y = torch.randn(64, 3), torch.randint(0, 2, (64,))
    loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(x, y), batch_size=16)
    model = torch.nn.Linear(3, 2)
    engine = opacus.PrivacyEngine(accountant="gdpproof")
    model, optimizer, loader = engine.make_private(module=model, optimizer=torch.optim.SGD(model.parameters(), lr=0.1),
                                                   data_loader=loader, noise_multiplier=1.0, max_grad_norm=1.0)
    for _ in range(2):
        for xb, yb in loader:
            optimizer.zero_grad()
            torch.nn.functional.cross_entropy(model(xb), yb).backward()
            optimizer.step()
    assert isinstance(engine.accountant, GdpproofAccountant)
    assert engine.accountant.history == [(1.0, 0.25, 8)]  # 2 epochs of 64/16 Poisson batches
    assert engine.get_epsilon(DELTA) == proven_upper(account(dpsgd(1.0, 0.25, 8), delta=DELTA))
    # make_private_with_epsilon's calibration: Opacus's bisection over this accountant's answers
    sigma = get_noise_multiplier(target_epsilon=4.0, target_delta=DELTA, sample_rate=0.25, steps=8,
                                 accountant="gdpproof", epsilon_tolerance=0.2)
    assert account(dpsgd(sigma, 0.25, 8), delta=DELTA).eps_upper <= 4


def test_fixed_size_batches_read_as_the_command_line_reads_them():
    """poisson=False: batches of fixed size (sensitivity 2C under either relation), the same
    proven epsilon as account() of dpsgd(..., sampling="fixed-batch") at the same (double) rate;
    the issue's run (sigma 1, 600 of 60,000, T = 1000, delta 1e-5) gives eps <= 14.8906."""
    acc = GdpproofAccountant()
    acc.history = [(1.0, 600 / 60000, 1000)]
    ours = acc.get_epsilon(DELTA, poisson=False)
    run = dpsgd(1.0, 600 / 60000, 1000, sampling="fixed-batch", neighbours="replace-one")
    assert ours == float(account(run, delta=DELTA).epsilon)
    assert 14.8905 < ours < 14.8907
    acc.step(noise_multiplier=0.0, sample_rate=0.01)
    with pytest.raises(NotSupportedError, match="noise_multiplier 0"):
        acc.get_epsilon(DELTA, poisson=False)
