"""Synthetic RAG samples for tests and benchmarks: deterministic, any number of them."""

from __future__ import annotations

import random

from veracity.types import Sample

_CITIES = ("Lisbon", "Oslo", "Quito", "Hanoi", "Nairobi", "Perth", "Lima", "Tallinn")
_THINGS = ("bridge", "museum", "library", "harbour", "observatory", "stadium", "market")
_PEOPLE = ("Ada Moreau", "Kenji Sato", "Lena Berg", "Omar Haddad", "Rosa Lind", "Ivan Petrov")


def _fact(rng: random.Random, index: int) -> str:
    city, thing, person = rng.choice(_CITIES), rng.choice(_THINGS), rng.choice(_PEOPLE)
    year = rng.randint(1850, 2020)
    return f"The {thing} of {city} number {index} was designed by {person} in {year}."


def synthetic_samples(
    count: int, *, contexts_per_sample: int = 3, seed: int = 0, system: str | None = None
) -> list[Sample]:
    """``count`` samples whose answers mix supported, unsupported and negated sentences."""
    rng = random.Random(seed)
    samples = []
    for i in range(count):
        facts = [_fact(rng, i * 10 + k) for k in range(contexts_per_sample)]
        answer = [facts[0]]
        roll = rng.random()
        if roll < 0.4:
            answer.append(facts[-1])
        elif roll < 0.7:
            answer.append(_fact(rng, 10_000 + i))  # a claim no context supports
        else:
            answer.append(facts[-1].replace(" was designed", " was not designed"))
        samples.append(
            Sample(
                id=f"syn-{i:06d}",
                question=f"What do we know about landmark number {i * 10}?",
                contexts=tuple(facts),
                answer=" ".join(answer),
                reference=facts[0],
                system=system,
            )
        )
    return samples
