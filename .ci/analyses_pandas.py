"""Key figures of generated sheets computed independently with pandas, for
the differential test shared/tests/analyses_pandas.rs.

stdin: one JSON case per line: {"module", "rows", "spec"}; spec names the
columns (as the sheet spells them), the number format ("es": 1.234,56; "en":
1,234.56 or plain JSON numbers), the date format ("dmy" text or "serial"
Excel numbers) and the header row when the header sits inside the data.
stdout: one JSON object per line: key figure id -> value (rounded as the
report rounds: money 2 dp, % 1 dp, counts 0 dp).
"""

import json
import re
import sys
import unicodedata
from decimal import ROUND_HALF_UP, Decimal

import pandas as pd

LEGAL = [["s", "l", "u"], ["s", "l", "l"], ["s", "coop"], ["s", "l"], ["s", "a"],
         ["sl"], ["slu"], ["sll"], ["sa"], ["scoop"]]


def name_key(name):
    text = unicodedata.normalize("NFKC", str(name)).lower()
    text = "".join(c for c in unicodedata.normalize("NFD", text) if not unicodedata.combining(c))
    words = re.sub(r"[^\w]+", " ", text).split()
    changed = True
    while changed:
        changed = False
        for suffix in LEGAL:
            if len(suffix) < len(words) and words[-len(suffix):] == suffix:
                words = words[: -len(suffix)]
                changed = True
                break
    return " ".join(words)


def number(series, fmt):
    def one(v):
        if v is None or (isinstance(v, float) and pd.isna(v)):
            return None
        if isinstance(v, (int, float)):
            return Decimal(repr(v)) if isinstance(v, float) else Decimal(v)
        s = str(v).replace("\u00a0", "").replace(" ", "").replace("€", "")
        negative = s.startswith("(") and s.endswith(")")
        s = s.strip("()")
        if fmt == "es":
            s = s.replace(".", "").replace(",", ".")
        else:
            s = s.replace(",", "")
        d = Decimal(s)
        return -d if negative else d
    return series.map(one)


def frame(rows, spec):
    df = pd.DataFrame.from_records(rows)
    header_row = spec.get("header_row")
    if header_row is not None:
        df.columns = [str(c) for c in df.iloc[header_row]]
        df = df.iloc[header_row + 1:].reset_index(drop=True)
    first = spec.get("label")
    if first:
        df = df[~df[first].astype(str).str.strip().str.lower().str.startswith("total")]
    return df


def money(x):
    return float(Decimal(x).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP))


def pct(x):
    return float(Decimal(x).quantize(Decimal("0.1"), rounding=ROUND_HALF_UP))


def whole(x):
    return float(Decimal(x).quantize(Decimal("1"), rounding=ROUND_HALF_UP))


def concentration(totals):
    totals = totals[totals > 0]
    whole_sum = totals.sum()
    shares = totals.map(lambda v: v * 100 / whole_sum)
    return len(totals), max(shares), sum(s * s for s in shares)


def ventas(df, spec):
    fmt = spec["format"]
    if "amount" in spec:
        revenue = number(df[spec["amount"]], fmt)
    else:
        revenue = number(df[spec["qty"]], fmt) * number(df[spec["price"]], fmt)
    df = df.assign(_r=revenue, _c=df[spec["customer"]].map(name_key))
    r = df["_r"].sum()
    ops = df[spec["doc"]].nunique() if "doc" in spec else len(df)
    count, top1, hhi = concentration(df.groupby("_c")["_r"].sum())
    return {"revenue": money(r), "operations": whole(ops), "average_ticket": money(r / ops),
            "customers": whole(count), "top1_share": pct(top1), "hhi": whole(hhi)}


def entradas(df, spec):
    fmt = spec["format"]
    base = number(df[spec["base"]], fmt)
    vat = number(df[spec["vat"]], fmt)
    df = df.assign(_b=base, _s=df[spec["supplier"]].map(name_key))
    count, top1, _ = concentration(df.groupby("_s")["_b"].sum())
    return {"spend": money(base.sum()), "input_vat": money(vat.sum()), "suppliers": whole(count),
            "top_supplier_share": pct(top1)}


def caja(df, spec):
    amount = number(df[spec["amount"]], spec["format"])
    inflow = amount[amount > 0].sum()
    outflow = -amount[amount < 0].sum()
    return {"inflows": money(inflow), "outflows": money(outflow), "net_flow": money(inflow - outflow)}


def servicios(df, spec):
    fmt = spec["format"]
    hours = number(df[spec["hours"]], fmt)
    rate = number(df[spec["rate"]], fmt)
    billed = (hours * rate).sum()
    return {"hours": float(Decimal(hours.sum()).quantize(Decimal("0.1"), rounding=ROUND_HALF_UP)),
            "billed": money(billed), "effective_rate": money(billed / hours.sum())}


def stock(df, spec):
    fmt = spec["format"]
    qty = number(df[spec["qty"]], fmt)
    cost = number(df[spec["cost"]], fmt)
    value = (qty.map(lambda q: max(q, Decimal(0))) * cost).sum()
    return {"stock_value": money(value), "skus": whole(len(df)),
            "units": whole(qty.map(lambda q: max(q, Decimal(0))).sum())}


def dates(df, spec):
    column = spec.get("date")
    if not column:
        return {}
    if spec["date_format"] == "serial":
        parsed = pd.to_datetime(df[column].astype(float).astype(int), unit="D", origin="1899-12-30")
    else:
        parsed = pd.to_datetime(df[column], dayfirst=True, format="%d/%m/%Y")
    return {"_from": parsed.min().strftime("%Y-%m-%d"), "_to": parsed.max().strftime("%Y-%m-%d")}


MODULES = {"ventas": ventas, "entradas": entradas, "caja": caja, "servicios": servicios, "stock": stock}

for line in sys.stdin:
    case = json.loads(line)
    df = frame(case["rows"], case["spec"])
    figures = MODULES[case["module"]](df, case["spec"])
    figures.update(dates(df, case["spec"]))
    print(json.dumps(figures), flush=True)
