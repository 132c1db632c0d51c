"""The floor for ``answerlens trial``: a bare httpx client making the same POSTs at the same concurrency.

``python httpx_trial.py --url U --payload FILE --requests N --concurrency C`` imports httpx only, opens one
``AsyncClient`` whose pool holds C connections (as a trial's does), and runs C workers that post the JSON body
in FILE to ``{U}/chat/completions`` and parse each reply until N requests are done. Timed from the process's start
to its exit, like the trial it is compared with (``trial_cli.py``).
"""

from __future__ import annotations

import argparse
import asyncio
import json
from pathlib import Path

import httpx


async def run(url: str, payload: object, requests: int, concurrency: int) -> int:
    left = requests
    limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)
    async with httpx.AsyncClient(timeout=30.0, limits=limits) as client:

        async def worker() -> int:
            nonlocal left
            done = 0
            while left > 0:
                left -= 1
                response = await client.post(f"{url}/chat/completions", json=payload)
                response.raise_for_status()
                response.json()
                done += 1
            return done

        return sum(await asyncio.gather(*(worker() for _ in range(concurrency))))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--url", required=True)
    parser.add_argument("--payload", type=Path, required=True)
    parser.add_argument("--requests", type=int, required=True)
    parser.add_argument("--concurrency", type=int, required=True)
    args = parser.parse_args()
    payload = json.loads(args.payload.read_text(encoding="utf-8"))
    done = asyncio.run(run(args.url, payload, args.requests, args.concurrency))
    if done != args.requests:
        raise SystemExit(f"{done} of {args.requests} requests done")


if __name__ == "__main__":
    main()
