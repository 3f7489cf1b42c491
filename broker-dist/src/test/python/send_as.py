"""Sends one message to ADDRESS as USER with SASL mechanism MECH and receives it back (python3-qpid-proton).
Usage: send_as.py URL USER PASSWORD MECH ADDRESS
Prints 'sent-and-received' on success, or 'refused: ...' with the broker's error condition when it refused; exits 0 in both
cases, non-zero on anything else (so the caller tells a refusal from a broken client)."""
import sys
from proton import ConnectionException, Message
from proton.utils import BlockingConnection, LinkDetached

url, user, password, mech, address = sys.argv[1:6]
try:
    conn = BlockingConnection(url, user=user, password=password, allowed_mechs=mech, timeout=20)
except ConnectionException as e:
    print("refused authentication: %s" % e)
    sys.exit(0)
try:
    sender = conn.create_sender(address)
    sender.send(Message(body="from-" + user, durable=True))
    receiver = conn.create_receiver(address)
    msg = receiver.receive(timeout=10)
    receiver.accept()
    print("sent-and-received" if msg.body == "from-" + user else "unexpected body %r" % msg.body)
except (LinkDetached, ConnectionException) as e:
    print("refused: %s" % e)
finally:
    conn.close()
