"""Sends COUNT messages with application property n (0..COUNT-1) and colour red/blue alternating, then receives with
a JMS selector (proton.reactor.Selector) and prints each body; a refused attach prints 'refused: <error>'.
Usage: selector_receive.py URL QUEUE COUNT SELECTOR EXPECTED"""
import sys
from proton import Message
from proton.reactor import Selector
from proton.utils import BlockingConnection, LinkDetached

url, queue, count, selector, expected = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], int(sys.argv[5])
conn = BlockingConnection(url, allowed_mechs="PLAIN")
sender = conn.create_sender(queue)
for i in range(count):
    sender.send(Message(body="m-%d" % i, durable=True,
                        properties={"n": i, "colour": "red" if i % 2 == 0 else "blue"}))
try:
    receiver = conn.create_receiver(queue, options=Selector(selector))
except LinkDetached as e:
    print("refused: %s" % e)
    conn.close()
    sys.exit(0)
for i in range(expected):
    msg = receiver.receive(timeout=10)
    print(msg.body)
    receiver.accept()
conn.close()
