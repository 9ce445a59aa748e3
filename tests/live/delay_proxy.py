"""delay_proxy.py -- a TCP relay that holds every byte DELAY_MS in each
direction, so that the clients behind it see a round trip of twice that:
the live tests' stand-in for netem, which this kind of machine's kernel
lacks (`tc qdisc add ... netem`: "Specified qdisc kind is unknown").
Order is kept: each direction is one queue of chunks, each sent when its
time comes.  It stops when its standard input closes.

usage: delay_proxy.py LISTEN_PORT TARGET_PORT DELAY_MS
"""
import asyncio
import sys


async def pipe(reader, writer, delay):
    loop = asyncio.get_running_loop()
    queue = asyncio.Queue()

    async def send():
        while True:
            due, data = await queue.get()
            if data is None:
                break
            wait = due - loop.time()
            if wait > 0:
                await asyncio.sleep(wait)
            writer.write(data)
            await writer.drain()
        writer.close()

    sender = asyncio.create_task(send())
    try:
        while True:
            data = await reader.read(65536)
            if not data:
                break
            queue.put_nowait((loop.time() + delay, data))
    finally:
        queue.put_nowait((0, None))
        await sender


async def main():
    listen, target, delay = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3]) / 1000

    async def client(creader, cwriter):
        try:
            sreader, swriter = await asyncio.open_connection("127.0.0.1", target)
        except OSError:
            cwriter.close()
            return
        await asyncio.gather(pipe(creader, swriter, delay), pipe(sreader, cwriter, delay),
                             return_exceptions=True)

    server = await asyncio.start_server(client, "127.0.0.1", listen)
    loop = asyncio.get_running_loop()
    stdin_closed = loop.run_in_executor(None, sys.stdin.read)
    async with server:
        await asyncio.wait([asyncio.ensure_future(stdin_closed)])


asyncio.run(main())
