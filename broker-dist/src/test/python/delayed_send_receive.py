"""Delivery delay from python3-qpid-proton: sends one message with the message annotation x-opt-delivery-delay
(milliseconds from the broker's receipt) and one without, then receives both. Prints 'received <body>' lines in the
order they came and 'waited enough: True' when the delayed one came no earlier than DELAY_MS after it was sent.
Usage: delayed_send_receive.py URL QUEUE DELAY_MS"""
import sys
import time
from proton import Message, symbol
from proton.utils import BlockingConnection

url, queue, delay_ms = sys.argv[1], sys.argv[2], int(sys.argv[3])
conn = BlockingConnection(url, allowed_mechs="PLAIN")
sender = conn.create_sender(queue)
sent_at = time.time()
sender.send(Message(body="later", durable=True,
                    annotations={symbol("x-opt-delivery-delay"): delay_ms}))
sender.send(Message(body="now", durable=True))
receiver = conn.create_receiver(queue)
for i in range(2):
    msg = receiver.receive(timeout=10 + delay_ms / 1000.0)
    print("received %s" % msg.body)
    receiver.accept()
    if msg.body == "later":
        print("waited enough: %s" % ((time.time() - sent_at) * 1000 >= delay_ms))
conn.close()
