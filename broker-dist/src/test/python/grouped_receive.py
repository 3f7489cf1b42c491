"""Message groups from python3-qpid-proton: two receivers on one queue; sends COUNT messages in each of the groups
'a' and 'b' (AMQP group-id, with group-sequence) interleaved with ungrouped ones, then collects what each receiver
got. Prints, per group, 'group <id>: one receiver <bool>, in order <bool>', and 'ungrouped <n>'.
Usage: grouped_receive.py URL QUEUE COUNT"""
import sys
from proton import Message
from proton.utils import BlockingConnection
from proton import Timeout

url, queue, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
conn = BlockingConnection(url, allowed_mechs="PLAIN", timeout=20)
# Distinct link names: proton names a link after the container and the address, the same for both receivers.
receivers = [conn.create_receiver(queue, credit=100, name="%s-receiver-%d" % (queue, n)) for n in (1, 2)]
sender = conn.create_sender(queue)
for i in range(count):
    for group in ("a", "b"):
        sender.send(Message(body="%s-%d" % (group, i), durable=True, group_id=group, group_sequence=i))
    sender.send(Message(body="x-%d" % i, durable=True))
got = {0: [], 1: []}
expected = 3 * count
while sum(len(v) for v in got.values()) < expected:
    progressed = False
    for n, receiver in enumerate(receivers):
        try:
            msg = receiver.receive(timeout=0.5)
        except Timeout:
            continue
        got[n].append((msg.group_id, msg.group_sequence, msg.body))
        receiver.accept()
        progressed = True
    if not progressed and sum(len(v) for v in got.values()) < expected:
        # both idle for a while: give up (the caller sees the counts)
        break
for group in ("a", "b"):
    holders = [n for n in got if any(g == group for g, _, _ in got[n])]
    received = [s for n in holders for g, s, _ in got[n] if g == group]
    print("group %s: one receiver %s, in order %s" % (group, len(holders) == 1, received == list(range(count))))
print("ungrouped %d" % sum(1 for n in got for g, _, _ in got[n] if g is None))
conn.close()
