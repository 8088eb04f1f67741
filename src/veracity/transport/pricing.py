"""What calls cost: a built-in price table of common models, overridable in the config."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from veracity.types import Usage

# List prices per million tokens when this table was written; providers change them, so
# the config file's ``prices`` section overrides any entry (or adds a model).
PRICES_AS_OF = "2026-12"


@dataclass(frozen=True, slots=True)
class Price:
    input_per_million: float
    output_per_million: float

    def scaled(self, factor: float) -> Price:
        return Price(self.input_per_million * factor, self.output_per_million * factor)

    def cost(self, usage: Usage) -> float:
        return (
            usage.input_tokens * self.input_per_million
            + usage.output_tokens * self.output_per_million
        ) / 1_000_000


@dataclass(frozen=True, slots=True)
class Pricing:
    """The prices a judge's usage is costed at: its own model's, and those of the other
    models whose tokens its usage counts, by name (a chat judge drawing a decision judge's
    claims). A price ``None`` is unknown."""

    own: Price | None
    others: Mapping[str, Price | None] = field(default_factory=dict)
    # The judge's own model, for saying which price is missing.
    model: str = ""

    def unpriced(self) -> tuple[str, ...]:
        """The models whose price is unknown, the judge's own first."""
        prices = [(self.model, self.own), *self.others.items()]
        return tuple(name for name, price in prices if price is None)

    def cost(self, usage: Usage) -> float | None:
        """What ``usage`` cost, each model's part at its price; ``None`` when a price is
        unknown, never a guess."""
        parts = [(self.own, usage.own())]
        parts += [(self.others.get(name), spent) for name, spent in usage.others.items()]
        if any(price is None for price, _ in parts):
            return None
        return sum(price.cost(spent) for price, spent in parts if price is not None)


BUILT_IN_PRICES: Mapping[str, Price] = {
    "gpt-4o-mini": Price(0.15, 0.60),
    "gpt-4o": Price(2.50, 10.00),
    "gpt-4.1-nano": Price(0.10, 0.40),
    "gpt-4.1-mini": Price(0.40, 1.60),
    "gpt-4.1": Price(2.00, 8.00),
    "gpt-5-nano": Price(0.05, 0.40),
    "gpt-5-mini": Price(0.25, 2.00),
    "gpt-5": Price(1.25, 10.00),
    "o3-mini": Price(1.10, 4.40),
    "o4-mini": Price(1.10, 4.40),
    "o3": Price(2.00, 8.00),
    "claude-3-5-haiku": Price(0.80, 4.00),
    "claude-haiku-4-5": Price(1.00, 5.00),
    "claude-3-5-sonnet": Price(3.00, 15.00),
    "claude-3-7-sonnet": Price(3.00, 15.00),
    "claude-sonnet-4": Price(3.00, 15.00),
    "claude-opus-4-5": Price(5.00, 25.00),
    "claude-opus-4": Price(15.00, 75.00),
    # A chat model's list price; through the Decisions API it bills its input only.
    "gpt-6-luna": Price(0.10, 0.50),
    "text-embedding-3-small": Price(0.02, 0.0),
    "text-embedding-3-large": Price(0.13, 0.0),
}


# Judges of decision models, which generate no text: they bill input tokens only, whatever
# the model's output price when it chats.
INPUT_ONLY_PROVIDERS = frozenset({"systemone", "openai-decisions"})

# What a request sent through a provider's batch API costs, as a share of the list price
# (OpenAI Batch and Anthropic Message Batches: half, for replies within 24 hours).
BATCH_DISCOUNT: Mapping[str, float] = {"openai": 0.5, "anthropic": 0.5}


def batch_price(model: str, overrides: Mapping[str, Price] | None = None) -> Price | None:
    """The price of ``model`` (``provider/MODEL``) through its provider's batch API;
    ``None`` when the model's price or the provider's discount is unknown."""
    price = find_price(model, overrides)
    discount = BATCH_DISCOUNT.get(model.split("/", 1)[0].strip().lower())
    return None if price is None or discount is None else price.scaled(discount)


def find_price(model: str, overrides: Mapping[str, Price] | None = None) -> Price | None:
    """The price of ``model`` (``provider/`` prefix and date suffixes allowed): an exact
    override, else the longest built-in or override name it starts with; ``None`` when
    unknown — a cost is never guessed. A decision model's price has no output part."""
    provider, slash, name = model.strip().lower().partition("/")
    if not slash:
        provider, name = "", provider
    table = {**BUILT_IN_PRICES, **{k.lower(): v for k, v in (overrides or {}).items()}}
    price = table.get(name)
    if price is None:
        matches = [key for key in table if name.startswith(key + "-")]
        price = table[max(matches, key=len)] if matches else None
    if price is not None and provider in INPUT_ONLY_PROVIDERS:
        return Price(price.input_per_million, 0.0)
    return price
