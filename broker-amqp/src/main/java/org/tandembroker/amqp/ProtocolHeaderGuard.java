package org.tandembroker.amqp;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import org.tandembroker.core.oplog.LogCode;
import org.tandembroker.core.oplog.OperationalLog;
import org.tandembroker.core.security.SecurityStatistics;

/**
 * The first handler after TLS: lets a connection through only when it starts with the AMQP SASL protocol header
 * {@code AMQP 3 1 0 0}. Anything else (AMQP without SASL, TLS on a plain port, HTTP, noise) is answered with that
 * header, as the spec asks of a server that does not speak the requested protocol, and the socket is closed; one
 * CON-1005 line is logged. After the header it passes bytes on untouched and removes itself.
 *
 * <p>Thread: the channel's event loop. Owns {@code held}, the first bytes when the header arrives in pieces.
 */
final class ProtocolHeaderGuard extends ChannelInboundHandlerAdapter {
    static final byte[] SASL_HEADER = {'A', 'M', 'Q', 'P', 3, 1, 0, 0};

    private final OperationalLog log;
    private final SecurityStatistics statistics;
    private ByteBuf held;
    private boolean refused;

    ProtocolHeaderGuard(OperationalLog log, SecurityStatistics statistics) {
        this.log = log;
        this.statistics = statistics;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        ByteBuf data = (ByteBuf) msg;
        if (refused) {
            data.release();
            return;
        }
        if (held != null) {
            data = Unpooled.wrappedBuffer(held, data);
            held = null;
        }
        int checkable = Math.min(SASL_HEADER.length, data.readableBytes());
        for (int i = 0; i < checkable; i++) {
            if (data.getByte(data.readerIndex() + i) != SASL_HEADER[i]) {
                refuse(ctx, data);
                return;
            }
        }
        if (checkable < SASL_HEADER.length) {
            held = data;
            return;
        }
        ctx.fireChannelRead(data);
        ctx.pipeline().remove(this);
    }

    private void refuse(ChannelHandlerContext ctx, ByteBuf data) {
        String received = ByteBufUtil.hexDump(data, data.readerIndex(), Math.min(SASL_HEADER.length, data.readableBytes()));
        data.release();
        refused = true;
        statistics.connectionRefused(SecurityStatistics.RefusalReason.PROTOCOL);
        log.log(LogCode.CON_1005, String.valueOf(ctx.channel().remoteAddress()),
                "unsupported protocol header 0x" + received + " (this broker speaks AMQP 1.0 with SASL); "
                        + "answered with the AMQP SASL header and closed");
        ctx.writeAndFlush(Unpooled.wrappedBuffer(SASL_HEADER)).addListener(ChannelFutureListener.CLOSE);
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        if (held != null) {
            held.release();
            held = null;
        }
    }
}
