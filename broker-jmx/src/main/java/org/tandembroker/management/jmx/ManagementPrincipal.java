package org.tandembroker.management.jmx;

import java.security.Principal;
import org.tandembroker.core.security.ManagementRole;

/**
 * The authenticated JMX user and its role, in the {@link javax.security.auth.Subject} of a JMX connection;
 * {@link RoleAccessControl} reads it. Never leaves the broker.
 */
record ManagementPrincipal(String name, ManagementRole role) implements Principal {
    @Override
    public String getName() {
        return name;
    }
}
