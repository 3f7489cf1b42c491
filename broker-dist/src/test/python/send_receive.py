"""The README's python3-qpid-proton quick start, parameterised: sends N durable messages and receives them back.
Usage: send_receive.py URL QUEUE COUNT   Prints one received body per line; exits non-zero on any failure."""
import sys
from proton import Message
from proton.utils import BlockingConnection

url, queue, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
conn = BlockingConnection(url, allowed_mechs="PLAIN")
sender = conn.create_sender(queue)
for i in range(count):
    sender.send(Message(body="python-%d" % i, durable=True))
receiver = conn.create_receiver(queue)
for i in range(count):
    msg = receiver.receive(timeout=10)
    print(msg.body)
    receiver.accept()
conn.close()
