package org.tandembroker.amqp;

import org.apache.qpid.proton.amqp.UnsignedInteger;
import org.apache.qpid.proton.amqp.messaging.Header;

/**
 * Rewrites the header section of a stored message before it is delivered again: delivery-count becomes the
 * number of earlier failed attempts and first-acquirer false; every other section is copied unchanged.
 *
 * <p>Thread: one instance per connection, used only on its event loop.
 */
final class RedeliveryHeader {
    private final MessageSections sections;

    RedeliveryHeader(MessageSections sections) {
        this.sections = sections;
    }

    byte[] rewrite(byte[] content, int deliveryCount) {
        MessageSections.Leading leading = sections.read(content);
        Header header = leading.header() != null ? leading.header() : new Header();
        header.setDeliveryCount(UnsignedInteger.valueOf(deliveryCount));
        header.setFirstAcquirer(false);
        byte[] encodedHeader = sections.encode(header);
        int rest = content.length - leading.headerEnd();
        byte[] result = new byte[encodedHeader.length + rest];
        System.arraycopy(encodedHeader, 0, result, 0, encodedHeader.length);
        System.arraycopy(content, leading.headerEnd(), result, encodedHeader.length, rest);
        return result;
    }
}
