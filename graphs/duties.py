"""The compiler's view of a role: its name, its duties (a contract and the work that fulfils it), its spec."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from accord.state.contracts import Contract
from accord.state.role_specs import RoleSpec
from accord.state.stage import Work


@dataclass(frozen=True)
class Duty:
    """One responsibility of a role: its contract and the work that fulfils it."""

    contract: Contract
    work: Work


@dataclass(frozen=True)
class Role:
    """A role as the compiler needs it: a name, its duties and, where it has one, its spec."""

    name: str
    duties: Mapping[str, Duty]
    spec: RoleSpec | None = None


def roles_from_specs(specs: Mapping[str, RoleSpec], work: Mapping[tuple[str, str], Work]) -> dict[str, Role]:
    """Build the compiler's roles from role specs: each duty's contract from its spec, its work by
    (role, duty). A duty without work, or work for no duty, is an error."""
    wanted = {(spec.name, duty.name) for spec in specs.values() for duty in spec.duties}
    if missing := wanted - set(work):
        raise ValueError(f"no work for duties {sorted(missing)}")
    if extra := set(work) - wanted:
        raise ValueError(f"work for duties no role spec declares: {sorted(extra)}")
    return {
        name: Role(name, {d.name: Duty(d.contract, work[(name, d.name)]) for d in spec.duties}, spec)
        for name, spec in specs.items()
    }
