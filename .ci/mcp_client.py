"""Drives the agent-tool endpoint with the official MCP Python SDK (PyPI `mcp`).

Usage: mcp_client.py BASE_URL LIVE_KEY TEST_KEY

With a modern client (2026-07-28, `server/discover`) and a legacy one
(`initialize`): lists the tools (22, exact names, valid JSON Schemas, all four
annotations), calls every tool with the live and the test key (the SDK checks
each `structuredContent` against the tool's `outputSchema`), checks `isError`
for bad input, that `issue_invoice` twice with one `idempotency_key` issues
once, and finally that an exhausted quota is an `isError` result.
Exits non-zero with the reason on the first failure.
"""

import asyncio
import random
import string
import sys
import uuid

import httpx2
from jsonschema import Draft202012Validator
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

TOOLS = {
    "extract_invoices", "analyze", "validate_tax_id", "calculate_vat", "calculate_withholding",
    "estimate_model_130", "fiscal_calendar", "get_usage", "list_analyses", "get_analysis",
    "issue_invoice", "list_invoices", "get_invoice", "cancel_invoice", "set_invoice_status",
    "record_payment", "send_invoice", "resubmit_verifactu_record", "get_job",
    "list_series", "create_series", "update_series", "delete_series",
    "estimate_model_303", "add_expense", "list_expenses", "compare_verifactu_records",
}

INVOICE_TEXT = """FACTURA
Número: A-2026/0147
Fecha: 05/08/2026
Emisor: Reformas Ana SL  NIF: B64717838
Cliente: Bar Lola SL  NIF: B12345674
Reparación de persiana  1  100,00
Base imponible: 100,00
IVA 21%: 21,00
Total: 121,00 €
"""


def check(condition, message):
    if not condition:
        raise SystemExit(f"FAIL: {message}")


def text(result):
    return result.content[0].text if result.content else ""


class Run:
    def __init__(self, client, schemas, label):
        self.client, self.schemas, self.label = client, schemas, label

    async def ok(self, name, arguments):
        Draft202012Validator(self.schemas[name]).validate(arguments)
        result = await self.client.call_tool(name, arguments)
        check(not result.is_error, f"{self.label}: {name} failed: {text(result)}")
        check(result.structured_content is not None, f"{self.label}: {name} has no structuredContent")
        check(text(result), f"{self.label}: {name} has no summary text")
        return result.structured_content

    async def error(self, name, arguments, *words):
        result = await self.client.call_tool(name, arguments)
        check(result.is_error, f"{self.label}: {name} {arguments} should be an error: {result.structured_content}")
        for word in words:
            check(word in text(result), f"{self.label}: {name}: {word!r} not in {text(result)!r}")
        return text(result)


async def list_tools(client, label):
    listed = await client.list_tools()
    names = {t.name for t in listed.tools}
    check(names == TOOLS, f"{label}: tools {sorted(names)}")
    check(len(listed.tools) == 27, f"{label}: {len(listed.tools)} tools")
    schemas = {}
    for tool in listed.tools:
        Draft202012Validator.check_schema(tool.input_schema)
        Draft202012Validator.check_schema(tool.output_schema)
        check(tool.input_schema.get("additionalProperties") is False, f"{tool.name}: input schema is not closed")
        a = tool.annotations
        hints = (a.read_only_hint, a.destructive_hint, a.idempotent_hint, a.open_world_hint)
        check(None not in hints, f"{tool.name}: annotations {hints}")
        check(len(tool.description) > 80, f"{tool.name}: description too short")
        schemas[tool.name] = tool.input_schema
    destructive = {t.name for t in listed.tools if t.annotations.destructive_hint and not t.annotations.read_only_hint}
    check(destructive == {"cancel_invoice"}, f"destructive tools: {destructive}")
    return schemas


def invoice_args(key):
    return {
        "idempotency_key": key,
        "customer": {"name": "Taller Ana SL", "tax_id": "B64717838", "address": "Calle Real 4",
                     "postal_code": "10003", "city": "Cáceres"},
        "lines": [{"description": "Diseño de logotipo", "quantity": 1, "unit_price": 1000, "vat_rate": 21}],
        "irpf_rate": 15,
    }


async def every_tool(run, live):
    nif = await run.ok("validate_tax_id", {"tax_id": "B64717838"})
    check(nif["valid"] is True, f"validate_tax_id: {nif}")
    bad_nif = await run.ok("validate_tax_id", {"tax_id": "12345678A"})
    check(bad_nif["valid"] is False, "an invalid NIF is a result with valid: false")
    vat = await run.ok("calculate_vat", {"amount": 121, "vat_rate": 21, "includes_vat": True})
    check(vat["base"] == 100 and vat["vat_amount"] == 21, f"calculate_vat: {vat}")
    await run.error("calculate_vat", {"amount": 100, "vat_rate": 22}, "vat_rate")
    held = await run.ok("calculate_withholding", {"base": 1000, "type": "professional"})
    check(held["withholding_amount"] == 150 and held["total_invoice"] == 1060, f"withholding: {held}")
    await run.error("calculate_withholding", {"base": 1000, "type": "lawyer"}, "type")
    m130 = await run.ok("estimate_model_130", {"year": 2026, "quarter": 3, "income": 20000, "expenses": 5000,
                                               "withholdings": 1000})
    check("boxes" in m130, f"model 130: {m130}")
    await run.ok("fiscal_calendar", {"forms": ["303", "130"], "lang": "es"})
    usage = await run.ok("get_usage", {})
    check(usage["livemode"] is live, f"usage: {usage}")

    extraction = await run.ok("extract_invoices", {"texts": [{"name": "factura.txt", "text": INVOICE_TEXT}]})
    check(len(extraction["invoices"]) == 1, f"extraction: {extraction}")
    await run.error("extract_invoices", {"files": []}, "files")

    expense = await run.ok("add_expense", {"extracted": extraction["invoices"][0], "category": "other",
                                           "number": f"MCP-{run.label}"})
    check(expense["livemode"] is live and expense["source"] == "extraction", f"add_expense: {expense}")
    await run.error("add_expense", {"supplier_name": "Proveedor", "supplier_tax_id": "B1"}, "supplier_tax_id")
    expenses = await run.ok("list_expenses", {"limit": 5})
    check(bool(expenses["data"]) is live, f"list_expenses: {expenses}")
    m303 = await run.ok("estimate_model_303", {"year": 2026, "quarter": 3})
    check("boxes" in m303 and "expenses" in m303, f"model 303: {m303}")

    answers = {"FIN1": True, "FIN2": False, "VEN1": True}
    analysis = await run.ok("analyze", {"type": "cuestionario", "lang": "es", "data": {"answers": answers}})
    listed = await run.ok("list_analyses", {"limit": 5})
    check("next_cursor" in listed, "list_analyses has next_cursor")
    if live:
        stored = await run.ok("get_analysis", {"analysis_id": analysis["id"]})
        check(stored["id"] == analysis["id"], "get_analysis returns the analysis")
    else:
        await run.error("get_analysis", {"analysis_id": analysis["id"]}, "analysis_id")
    job = await run.ok("analyze", {"type": "cuestionario", "data": {"answers": answers}, "run_as_job": True})
    check(job["object"] == "job", f"run_as_job gives a job: {job}")
    for _ in range(100):
        polled = await run.ok("get_job", {"job_id": job["id"]})
        if polled["status"] in ("succeeded", "failed"):
            break
        await asyncio.sleep(0.1)
    check(polled["status"] == "succeeded", f"job: {polled}")
    await run.error("get_job", {"job_id": "job_doesnotexist"}, "job_id")

    key = str(uuid.uuid4())
    first = await run.ok("issue_invoice", invoice_args(key))
    # Asking the AEAT needs the issuer's certificate with a live key; test keys ask the simulator.
    if live:
        await run.error("compare_verifactu_records", {"year": 2026, "period": 11}, "certificate")
    else:
        compared = await run.ok("compare_verifactu_records", {"year": 2026, "period": 11})
        check(compared["object"] == "verifactu_comparison", f"compare_verifactu_records: {compared}")
    before = await run.ok("list_invoices", {"limit": 100})
    again = await run.ok("issue_invoice", invoice_args(key))
    after = await run.ok("list_invoices", {"limit": 100})
    check(first["id"] == again["id"] and first["number"] == again["number"], "one key, one invoice")
    check(len(before["data"]) == len(after["data"]), "the retry issued nothing")
    check(first["number"].startswith("F") if live else first["number"].startswith("TEST-"), first["number"])
    changed = invoice_args(key)
    changed["irpf_rate"] = 7
    await run.error("issue_invoice", changed, "idempotency_key")
    got = await run.ok("get_invoice", {"invoice_id": first["id"]})
    check(got["number"] == first["number"], "get_invoice")
    await run.error("get_invoice", {"invoice_id": 987654321}, "invoice_id")
    await run.error("resubmit_verifactu_record", {"invoice_id": first["id"]}, "invalid_state")
    payment = {"invoice_id": first["id"], "idempotency_key": str(uuid.uuid4()), "amount": 10, "method": "transfer"}
    part = await run.ok("record_payment", payment)
    check(part["payment_status"] == "partially_paid" and part["amount_paid"] == 10, "record_payment")
    retried = await run.ok("record_payment", payment)
    check(len(retried["payments"]) == 1, "one key, one payment")
    await run.error("record_payment", {**payment, "idempotency_key": str(uuid.uuid4()), "amount": 100000}, "amount")
    paid = await run.ok("set_invoice_status", {"invoice_id": first["id"], "status": "paid"})
    check(paid["status"] == "paid", "set_invoice_status")
    emailed = {"invoice_id": first["id"], "idempotency_key": str(uuid.uuid4()), "to": ["ana@example.com"]}
    if live:
        await run.error("send_invoice", emailed, "email_not_configured")
    else:
        sent = await run.ok("send_invoice", emailed)
        check(sent["simulated"] is True and sent["to"] == ["ana@example.com"], f"send_invoice: {sent}")
    mistake = await run.ok("issue_invoice", invoice_args(str(uuid.uuid4())))
    cancelled = await run.ok("cancel_invoice", {"invoice_id": mistake["id"], "reason": "emitida por error"})
    check(cancelled["status"] == "cancelled", "cancel_invoice")
    await run.error("cancel_invoice", {"invoice_id": mistake["id"]}, "invalid_state")
    series = await run.ok("list_series", {})
    check({s["code"] for s in series["data"]} >= {"F", "S", "R", "RS"}, f"list_series: {series}")
    code = "".join(random.choice(string.ascii_uppercase) for _ in range(8))
    made = await run.ok("create_series", {"code": code, "purpose": "simplified", "pattern": "{code}-{n:04}",
                                          "yearly_restart": False})
    check(made["next_number"].endswith(f"{code}-0001"), f"create_series: {made}")
    await run.error("create_series", {"code": code, "purpose": "simplified"}, "series_exists")
    described = await run.ok("update_series", {"series_code": code, "description": "Tienda"})
    check(described["description"] == "Tienda", f"update_series: {described}")
    gone = await run.ok("delete_series", {"series_code": code})
    check(gone["deleted"] is True, f"delete_series: {gone}")
    await run.error("delete_series", {"series_code": "F"}, "series_builtin")
    page = await run.ok("list_invoices", {"limit": 1})
    if page["next_cursor"] is not None:
        await run.ok("list_invoices", {"limit": 1, "cursor": page["next_cursor"]})


async def session(url, key, mode, label):
    async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {key}"}, timeout=60) as http:
        async with Client(streamable_http_client(url, http_client=http), mode=mode) as client:
            expected = "2025-11-25" if mode == "legacy" else "2026-07-28"
            check(client.protocol_version == expected, f"{label}: protocol {client.protocol_version}")
            schemas = await list_tools(client, label)
            await every_tool(Run(client, schemas, label), key.startswith("svc_live_"))


async def exhaust_quota(url, key):
    async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {key}"}, timeout=60) as http:
        async with Client(streamable_http_client(url, http_client=http)) as client:
            for _ in range(50):
                result = await client.call_tool("analyze", {"type": "cuestionario", "data": {"answers": {"FIN1": True}}})
                if result.is_error:
                    check("quota_exceeded" in text(result), f"quota: {text(result)}")
                    return
            raise SystemExit("FAIL: the quota never ran out")


async def main(base, live, test):
    url = base.rstrip("/") + "/api/mcp"
    for mode in ("auto", "legacy"):
        for key, name in ((live, "live"), (test, "test")):
            await session(url, key, mode, f"{mode}/{name}")
    await exhaust_quota(url, live)
    print("mcp client checks passed (modern and legacy clients, live and test keys)")


if __name__ == "__main__":
    asyncio.run(main(*sys.argv[1:4]))
