package org.tandembroker.tools;

import java.io.IOException;
import java.util.Set;
import javax.management.Attribute;
import javax.management.InstanceNotFoundException;
import javax.management.JMException;
import javax.management.MBeanServerConnection;
import javax.management.ObjectName;
import javax.management.remote.JMXConnector;

/**
 * A logged-in JMX connection to a broker ({@link JmxTarget#connect()}). Every call turns the ways JMX fails into
 * a {@link ToolFailure}: the broker's refusal (an MBean's {@code IllegalStateException} or
 * {@code IllegalArgumentException}, wrapped by JMX) is {@link ToolFailure#REFUSED} with the broker's own message; a
 * role that may not do it is {@link ToolFailure#ACCESS_DENIED}; a lost connection is
 * {@link ToolFailure#CANNOT_CONNECT}; an MBean that is not there is {@link ToolFailure#USAGE} (a wrong virtual host).
 *
 * <p><b>Threads.</b> One caller at a time (a command-line tool's main thread).
 */
public final class JmxSession implements AutoCloseable {
    private final JMXConnector connector;
    private final MBeanServerConnection connection;
    private final String address;

    JmxSession(JMXConnector connector, String address) {
        this.connector = connector;
        this.address = address;
        try {
            this.connection = connector.getMBeanServerConnection();
        } catch (IOException e) {
            throw new ToolFailure(ToolFailure.CANNOT_CONNECT, "connected to " + address + " but cannot use it: "
                    + ToolFailure.firstLine(e), e);
        }
    }

    /** The service URL this session is connected to. */
    public String address() {
        return address;
    }

    /** A JMX call. */
    @FunctionalInterface
    public interface Call<T> {
        T call(MBeanServerConnection connection) throws JMException, IOException;
    }

    /** Runs {@code call}; {@code what} names it in failures ("read NodeState of ..."). */
    public <T> T call(String what, Call<T> call) {
        try {
            return call.call(connection);
        } catch (InstanceNotFoundException e) {
            throw ToolFailure.usage("cannot " + what + ": the broker at " + address + " has no MBean "
                    + ToolFailure.firstLine(e));
        } catch (SecurityException e) {
            throw new ToolFailure(ToolFailure.ACCESS_DENIED, "cannot " + what + ": " + ToolFailure.firstLine(e), e);
        } catch (JMException | RuntimeException e) {
            Throwable root = rootCause(e);
            if (root instanceof SecurityException) {
                throw new ToolFailure(ToolFailure.ACCESS_DENIED, "cannot " + what + ": " + ToolFailure.firstLine(root),
                        e);
            }
            throw new ToolFailure(ToolFailure.REFUSED, "the broker refused to " + what + ": "
                    + String.valueOf(root.getMessage()).trim(), e);
        } catch (IOException e) {
            throw new ToolFailure(ToolFailure.CANNOT_CONNECT, "lost the connection to " + address + " while trying to "
                    + what + ": " + ToolFailure.firstLine(rootCause(e)), e);
        }
    }

    public Object getAttribute(ObjectName name, String attribute) {
        return call("read " + attribute + " of " + name, c -> c.getAttribute(name, attribute));
    }

    public void setAttribute(ObjectName name, String attribute, Object value) {
        call("set " + attribute + " of " + name + " to " + value, c -> {
            c.setAttribute(name, new Attribute(attribute, value));
            return null;
        });
    }

    public Object invoke(ObjectName name, String operation, Object[] parameters, String[] signature) {
        return call("run " + operation + " on " + name, c -> c.invoke(name, operation, parameters, signature));
    }

    public Set<ObjectName> queryNames(ObjectName pattern) {
        return call("list " + pattern, c -> c.queryNames(pattern, null));
    }

    public boolean isRegistered(ObjectName name) {
        return call("look up " + name, c -> c.isRegistered(name));
    }

    private static Throwable rootCause(Throwable e) {
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        return root;
    }

    @Override
    public void close() {
        try {
            connector.close();
        } catch (IOException | RuntimeException e) {
            // the connection is gone either way
        }
    }
}
