"""Carts and their tests: a pytest module."""
from __future__ import annotations

import json
from typing import TypeAlias

from shop.util import Helper
from . import prices

MAX_ITEMS = 10
"""The most items a cart holds."""

Total: TypeAlias = int
type Quantity = int
default_cart = None


class Cart(Helper):
    """A cart of items."""

    limit = MAX_ITEMS

    def __init__(self, owner: str) -> None:
        self.items: list[str] = []
        self.owner = owner

    @property
    def size(self) -> Total:
        """How many items the cart holds."""
        return len(self.items)

    def add(self, item: str) -> None:
        if self.size >= MAX_ITEMS:
            raise ValueError(item)
        self.items.append(item)
        self.run(prices.lookup(item))

    @classmethod
    def empty(cls) -> Cart:
        return cls.make("nobody")

    def _dump(self) -> str:
        return json.dumps(self.items)


def checkout(cart: Cart, log) -> Total:
    """Empties the cart and returns what it cost."""
    cart.add("receipt")
    log.write(cart.owner)
    return Cart("x").size


class TestCart:
    def test_adds(self):
        Cart("me").add("apple")

    def helper(self):
        return checkout(Cart("me"), None)


def test_checkout():
    assert checkout(Cart("me"), None) == 0
