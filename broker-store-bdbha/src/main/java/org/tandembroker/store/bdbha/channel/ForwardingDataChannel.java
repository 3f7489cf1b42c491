package org.tandembroker.store.bdbha.channel;

import com.sleepycat.je.rep.net.DataChannel;
import java.io.IOException;
import java.net.Socket;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;

/**
 * A JE channel that passes every call to {@code delegate}; a decorator overrides what it watches. Every read and
 * every write goes through {@link #read(ByteBuffer[], int, int)} and {@link #write(ByteBuffer[], int, int)}, so
 * those two are all a decorator of the data needs to override.
 */
abstract class ForwardingDataChannel implements DataChannel {
    protected final DataChannel delegate;

    ForwardingDataChannel(DataChannel delegate) {
        this.delegate = delegate;
    }

    @Override
    public long read(ByteBuffer[] destinations, int offset, int length) throws IOException {
        return delegate.read(destinations, offset, length);
    }

    @Override
    public final int read(ByteBuffer destination) throws IOException {
        return (int) read(new ByteBuffer[] {destination}, 0, 1);
    }

    @Override
    public final long read(ByteBuffer[] destinations) throws IOException {
        return read(destinations, 0, destinations.length);
    }

    @Override
    public long write(ByteBuffer[] sources, int offset, int length) throws IOException {
        return delegate.write(sources, offset, length);
    }

    @Override
    public final long write(ByteBuffer[] sources) throws IOException {
        return write(sources, 0, sources.length);
    }

    @Override
    public final int write(ByteBuffer source) throws IOException {
        return (int) write(new ByteBuffer[] {source}, 0, 1);
    }

    @Override
    public FlushStatus flush() throws IOException {
        return delegate.flush();
    }

    @Override
    public boolean isConnected() {
        return delegate.isConnected();
    }

    @Override
    public Socket socket() {
        return delegate.socket();
    }

    @Override
    public SocketAddress getRemoteAddress() throws IOException {
        return delegate.getRemoteAddress();
    }

    @Override
    public void configureBlocking(boolean block) throws IOException {
        delegate.configureBlocking(block);
    }

    @Override
    public boolean isBlocking() {
        return delegate.isBlocking();
    }

    @Override
    public boolean isSecure() {
        return delegate.isSecure();
    }

    @Override
    public boolean isTrustCapable() {
        return delegate.isTrustCapable();
    }

    @Override
    public boolean isTrusted() {
        return delegate.isTrusted();
    }

    @Override
    public boolean isOpen() {
        return delegate.isOpen();
    }

    @Override
    public void close() throws IOException {
        delegate.close();
    }

    @Override
    public CloseAsyncStatus closeAsync() throws IOException {
        return delegate.closeAsync();
    }

    @Override
    public void closeForcefully() throws IOException {
        delegate.closeForcefully();
    }

    @Override
    public SocketChannel getSocketChannel() {
        return delegate.getSocketChannel();
    }
}
