"""A durable subscription with python3-qpid-proton: subscribes to TOPIC as SUBSCRIPTION under container id CLIENT
(a receiver named SUBSCRIPTION, DurableSubscription, the 'topic' capability), detaches (the subscription stays),
publishes COUNT messages to the topic, attaches again and prints 'received <body>' for each, then closes the
receiver, which deletes the subscription. Usage: durable_subscription.py URL CLIENT TOPIC SUBSCRIPTION COUNT"""
import sys
from proton import Data, Message, symbol
from proton.reactor import Container, DurableSubscription, LinkOption
from proton.utils import BlockingConnection


class Topic(LinkOption):
    """Marks the link's terminus as a topic, as Qpid JMS does for session.createTopic(name)."""

    def apply(self, link):
        terminus = link.source if link.is_receiver else link.target
        terminus.capabilities.put_array(False, Data.SYMBOL)
        terminus.capabilities.enter()
        terminus.capabilities.put_symbol(symbol("topic"))
        terminus.capabilities.exit()


url, client, topic, name, count = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5])
container = Container()
container.container_id = client  # the subscription belongs to this client (JMS: the client ID)
conn = BlockingConnection(url, timeout=10, container=container, allowed_mechs="PLAIN")

first = conn.create_receiver(topic, name=name, options=[DurableSubscription(), Topic()])
first.link.detach()  # detach, not close: the subscription stays and keeps collecting

publisher = conn.create_sender(topic, options=Topic())
for i in range(count):
    publisher.send(Message(body="m-%d" % i, durable=True))
publisher.close()

subscriber = conn.create_receiver(topic, name=name, options=[DurableSubscription(), Topic()], credit=count)
for i in range(count):
    print("received %s" % subscriber.receive(timeout=10).body)
    subscriber.accept()
subscriber.close()  # close: the subscription is deleted
conn.close()
del first, subscriber  # while the interpreter is whole (proton's receivers tidy up in __del__)
