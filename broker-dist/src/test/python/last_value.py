"""Sends durable quotes 'SYMBOL:PRICE' to a last-value queue (created with the address parameter
last-value-key=symbol), then receives what is left and prints the bodies. Usage: last_value.py URL QUEUE QUOTE..."""
import sys
from proton import Message
from proton.utils import BlockingConnection

url, queue, quotes = sys.argv[1], sys.argv[2], sys.argv[3:]
conn = BlockingConnection(url, allowed_mechs="PLAIN")
sender = conn.create_sender(queue + "?last-value-key=symbol")
for quote in quotes:
    sender.send(Message(body=quote, durable=True, properties={"symbol": quote.split(":")[0]}))
receiver = conn.create_receiver(queue)
while True:
    try:
        message = receiver.receive(timeout=2)
    except Exception:
        break
    print(message.body)
    receiver.accept()
conn.close()
