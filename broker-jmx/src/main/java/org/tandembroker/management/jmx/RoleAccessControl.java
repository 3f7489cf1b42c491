package org.tandembroker.management.jmx;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.security.AccessController;
import java.util.Optional;
import java.util.Set;
import javax.management.MBeanInfo;
import javax.management.MBeanOperationInfo;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import javax.management.remote.MBeanServerForwarder;
import javax.security.auth.Subject;
import org.tandembroker.core.security.ManagementRole;

/**
 * Enforces the JMX roles in front of the MBean server the connector serves (an {@link MBeanServerForwarder}):
 * <ul>
 *   <li>monitor: reads (attributes, MBean info, queries, notifications); no attribute writes and no operations,
 *       except Tandem's own read-only operations (impact INFO, e.g. {@code pingNode});</li>
 *   <li>admin: everything monitor may, plus attribute writes and operations;</li>
 *   <li>nobody, over JMX: creating or unregistering MBeans (a classic way to load remote code).</li>
 * </ul>
 * A refusal is a {@link SecurityException} naming the user, its role and what was refused.
 *
 * <p><b>Threads.</b> Runs on RMI's connection threads; the role comes from the calling connection's
 * {@link Subject}. The forwarded server is set once, before the connector starts.
 */
final class RoleAccessControl implements InvocationHandler {
    private static final Set<String> WRITES = Set.of("setAttribute", "setAttributes", "invoke");
    private static final Set<String> NEVER = Set.of("createMBean", "registerMBean", "unregisterMBean");
    private static final Set<String> OWN_DOMAINS = Set.of(ObjectNames.QPID_DOMAIN, ObjectNames.TANDEM_DOMAIN);

    private volatile MBeanServer target;

    static MBeanServerForwarder create() {
        return (MBeanServerForwarder) Proxy.newProxyInstance(MBeanServerForwarder.class.getClassLoader(),
                new Class<?>[] {MBeanServerForwarder.class}, new RoleAccessControl());
    }

    @Override
    public Object invoke(Object proxy, Method method, Object[] args) throws Throwable {
        String name = method.getName();
        if (name.equals("getMBeanServer") && (args == null || args.length == 0)) {
            return target;
        }
        if (name.equals("setMBeanServer") && args != null && args.length == 1) {
            if (target != null) {
                throw new IllegalStateException("the forwarded MBean server is already set");
            }
            target = (MBeanServer) args[0];
            return null;
        }
        if (method.getDeclaringClass() == Object.class) {
            return switch (name) {
                case "equals" -> proxy == args[0];
                case "hashCode" -> System.identityHashCode(proxy);
                default -> "RoleAccessControl[" + target + "]";
            };
        }
        check(name, args);
        try {
            return method.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }

    private void check(String method, Object[] args) throws Exception {
        Optional<ManagementPrincipal> caller = currentPrincipal();
        if (caller.isEmpty()) {
            // The connector's own calls (e.g. for class loading while it sets a connection up) run without a
            // subject; every remote call runs with the one the authenticator made.
            if (NEVER.contains(method) || WRITES.contains(method)) {
                throw new SecurityException("access denied: " + method + " without an authenticated user");
            }
            return;
        }
        ManagementPrincipal principal = caller.get();
        if (NEVER.contains(method)) {
            throw new SecurityException("access denied: " + method + " is not allowed over JMX (user '"
                    + principal.getName() + "')");
        }
        if (!WRITES.contains(method) || principal.role() == ManagementRole.ADMIN) {
            return;
        }
        ObjectName target = args != null && args.length > 0 && args[0] instanceof ObjectName n ? n : null;
        if (method.equals("invoke") && target != null && isReadOnlyOperation(target, (String) args[1])) {
            return;
        }
        String what = switch (method) {
            case "invoke" -> "operation " + args[1];
            case "setAttribute" -> "setting attribute " + ((javax.management.Attribute) args[1]).getName();
            default -> "setting attributes";
        };
        throw new SecurityException("access denied: user '" + principal.getName() + "' has role "
                + principal.role().fileName() + " (read only); " + what + (target != null ? " of " + target : "")
                + " needs role admin");
    }

    /** Tandem's own operations that only read (impact INFO) are open to monitors. */
    private boolean isReadOnlyOperation(ObjectName name, String operation) throws Exception {
        if (!OWN_DOMAINS.contains(name.getDomain())) {
            return false;
        }
        MBeanInfo info = target.getMBeanInfo(name);
        for (MBeanOperationInfo op : info.getOperations()) {
            if (op.getName().equals(operation) && op.getImpact() != MBeanOperationInfo.INFO) {
                return false;
            }
        }
        for (MBeanOperationInfo op : info.getOperations()) {
            if (op.getName().equals(operation)) {
                return true;
            }
        }
        return false;
    }

    @SuppressWarnings("removal")
    private static Optional<ManagementPrincipal> currentPrincipal() {
        Subject subject = Subject.getSubject(AccessController.getContext());
        if (subject == null) {
            return Optional.empty();
        }
        return subject.getPrincipals(ManagementPrincipal.class).stream().findFirst();
    }
}
