"""Sends one durable message per PRIORITY argument (body 'p<priority>-<index>'), then receives them all and prints
the bodies in the order they came. Usage: priority.py URL QUEUE PRIORITY...   Exits non-zero on any failure."""
import sys
from proton import Message
from proton.utils import BlockingConnection

url, queue, priorities = sys.argv[1], sys.argv[2], [int(p) for p in sys.argv[3:]]
conn = BlockingConnection(url, allowed_mechs="PLAIN")
sender = conn.create_sender(queue)
for i, priority in enumerate(priorities):
    sender.send(Message(body="p%d-%d" % (priority, i), durable=True, priority=priority))
receiver = conn.create_receiver(queue)
for i in range(len(priorities)):
    print(receiver.receive(timeout=10).body)
    receiver.accept()
conn.close()
