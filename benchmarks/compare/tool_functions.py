"""The 20 tool functions of the schema-generation comparison.

Nested pydantic models, enums, literals, lists, dates and optional fields: the
shapes real tools take. Only pydantic and the standard library are imported.
"""

from __future__ import annotations

from datetime import date
from enum import StrEnum
from typing import Literal

from pydantic import BaseModel, Field


class Priority(StrEnum):
    """How urgent a task is."""

    LOW = "low"
    NORMAL = "normal"
    HIGH = "high"


class Unit(StrEnum):
    """Temperature unit."""

    CELSIUS = "celsius"
    FAHRENHEIT = "fahrenheit"


class Currency(StrEnum):
    """ISO currency code."""

    EUR = "EUR"
    USD = "USD"
    GBP = "GBP"


class Address(BaseModel):
    """A postal address."""

    street: str
    city: str
    postcode: str | None = None
    country: str = "NZ"


class Person(BaseModel):
    """Someone with a name and an optional address."""

    name: str
    email: str | None = None
    address: Address | None = None


class LineItem(BaseModel):
    """One product line on an order."""

    sku: str
    quantity: int = Field(ge=1)
    unit_price: float
    currency: Currency = Currency.USD


class Order(BaseModel):
    """An order with a customer and lines."""

    customer: Person
    items: list[LineItem]
    shipping: Address | None = None
    notes: str | None = None


class DateRange(BaseModel):
    """A closed range of days."""

    start: date
    end: date


class Filter(BaseModel):
    """One field filter."""

    field: str
    op: Literal["eq", "ne", "lt", "gt", "contains"] = "eq"
    value: str | int | float | None = None


class Query(BaseModel):
    """A search query with filters and paging."""

    text: str
    filters: list[Filter] = []
    page: int = 1
    page_size: int = Field(default=20, le=100)


async def get_weather(city: str, unit: Unit = Unit.CELSIUS, days: int = 1) -> str:
    """Get the weather forecast for a city.

    Args:
        city: City name.
        unit: Temperature unit.
        days: Number of days to forecast.
    """
    return "sunny"


async def create_task(
    title: str, priority: Priority = Priority.NORMAL, due: date | None = None
) -> str:
    """Create a task.

    Args:
        title: Short title of the task.
        priority: How urgent it is.
        due: Optional due date.
    """
    return "ok"


async def place_order(order: Order, express: bool = False) -> str:
    """Place an order.

    Args:
        order: The order to place.
        express: Ship with express delivery.
    """
    return "ok"


async def search_documents(query: Query, include_archived: bool | None = None) -> str:
    """Search documents.

    Args:
        query: What to look for.
        include_archived: Also search archived documents.
    """
    return "ok"


async def register_person(person: Person, tags: list[str] | None = None) -> str:
    """Register a person.

    Args:
        person: The person to register.
        tags: Labels to attach.
    """
    return "ok"


async def convert_currency(amount: float, source: Currency, target: Currency) -> str:
    """Convert an amount between currencies.

    Args:
        amount: The amount to convert.
        source: Currency of the amount.
        target: Currency to convert to.
    """
    return "ok"


async def book_meeting(
    title: str, attendees: list[Person], window: DateRange, room: str | None = None
) -> str:
    """Book a meeting.

    Args:
        title: Meeting title.
        attendees: Who is invited.
        window: Days the meeting may be held on.
        room: Preferred room.
    """
    return "ok"


async def update_address(person_id: int, address: Address) -> str:
    """Update someone's address.

    Args:
        person_id: Who to update.
        address: The new address.
    """
    return "ok"


async def list_orders(
    customer_email: str | None = None, since: date | None = None, limit: int = 50
) -> str:
    """List orders.

    Args:
        customer_email: Only this customer's orders.
        since: Only orders placed on or after this day.
        limit: Maximum number of orders.
    """
    return "ok"


async def refund(order_id: str, items: list[LineItem], reason: str | None = None) -> str:
    """Refund part of an order.

    Args:
        order_id: The order to refund.
        items: Lines to refund.
        reason: Why the refund is given.
    """
    return "ok"


async def set_priority(task_id: int, priority: Priority) -> str:
    """Change a task's priority.

    Args:
        task_id: The task.
        priority: The new priority.
    """
    return "ok"


async def translate(text: str, target_language: str, source_language: str | None = None) -> str:
    """Translate text.

    Args:
        text: Text to translate.
        target_language: Language code to translate to.
        source_language: Language code of the text, detected when missing.
    """
    return "ok"


async def summarize(
    text: str, max_words: int = 100, style: Literal["plain", "bullets"] = "plain"
) -> str:
    """Summarize text.

    Args:
        text: Text to summarize.
        max_words: Upper bound on the summary's length.
        style: Layout of the summary.
    """
    return "ok"


async def send_email(to: list[str], subject: str, body: str, cc: list[str] | None = None) -> str:
    """Send an email.

    Args:
        to: Recipients.
        subject: Subject line.
        body: Plain-text body.
        cc: Copied recipients.
    """
    return "ok"


async def estimate_shipping(destination: Address, weight_kg: float, items: int = 1) -> str:
    """Estimate shipping cost.

    Args:
        destination: Where the parcel goes.
        weight_kg: Parcel weight in kilograms.
        items: Number of parcels.
    """
    return "ok"


async def schedule_report(
    name: str, window: DateRange, recipients: list[Person], unit: Unit | None = None
) -> str:
    """Schedule a report.

    Args:
        name: Report name.
        window: Period covered by the report.
        recipients: Who receives it.
        unit: Unit for temperatures in the report.
    """
    return "ok"


async def lookup_stock(sku: str, warehouse: str | None = None) -> str:
    """Stock level of a product.

    Args:
        sku: Product code.
        warehouse: Only this warehouse.
    """
    return "ok"


async def rate_limit_status(api_key_name: str) -> str:
    """Rate-limit status of a named key.

    Args:
        api_key_name: Name of the key (not the key itself).
    """
    return "ok"


async def bulk_update(orders: list[Order], dry_run: bool = True) -> str:
    """Update many orders at once.

    Args:
        orders: Orders to update.
        dry_run: Only report what would change.
    """
    return "ok"


async def find_people(filters: list[Filter], limit: int | None = None) -> str:
    """Find people matching filters.

    Args:
        filters: Conditions they must all meet.
        limit: Maximum number of results.
    """
    return "ok"


SCHEMA_FUNCTIONS = [
    get_weather,
    create_task,
    place_order,
    search_documents,
    register_person,
    convert_currency,
    book_meeting,
    update_address,
    list_orders,
    refund,
    set_priority,
    translate,
    summarize,
    send_email,
    estimate_shipping,
    schedule_report,
    lookup_stock,
    rate_limit_status,
    bulk_update,
    find_people,
]
