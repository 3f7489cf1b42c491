"""Sends COUNT messages, browses them with a copy-mode receiver (proton.reactor.Copy), optionally with a selector on
application property n, then receives them all with an ordinary receiver. Prints 'browsed <body>' and
'received <body>' lines. Usage: browse.py URL QUEUE COUNT [SELECTOR BROWSE_COUNT]"""
import sys
from proton import Message
from proton.reactor import Copy, Selector
from proton.utils import BlockingConnection

url, queue, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
selector = sys.argv[4] if len(sys.argv) > 4 else None
browse_count = int(sys.argv[5]) if len(sys.argv) > 5 else count
conn = BlockingConnection(url, allowed_mechs="PLAIN")
sender = conn.create_sender(queue)
for i in range(count):
    sender.send(Message(body="m-%d" % i, durable=True, properties={"n": i}))
options = [Copy()] + ([Selector(selector)] if selector else [])
browser = conn.create_receiver(queue, options=options)
for i in range(browse_count):
    print("browsed %s" % browser.receive(timeout=10).body)
    browser.accept()
browser.close()
receiver = conn.create_receiver(queue)
for i in range(count):
    print("received %s" % receiver.receive(timeout=10).body)
    receiver.accept()
conn.close()
