package org.tandembroker.management.jmx;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.tandembroker.core.security.AccessControl;

/** {@link PermissionsMBean} over the broker's {@link AccessControl}. Any RMI thread; reloads are serialized there. */
public final class PermissionsBean implements PermissionsMBean {
    private final AccessControl accessControl;

    public PermissionsBean(AccessControl accessControl) {
        this.accessControl = accessControl;
    }

    static DescribedMBean<PermissionsMBean> described(PermissionsBean bean) {
        return DescribedMBean.of(bean, PermissionsMBean.class, "Client permissions (the permissions file)",
                Map.of("PermissionsFile", "The permissions file in force; empty when none (authorization off)",
                        "AuthorizationEnabled", "Whether a permissions file is in force",
                        "reloadPermissions", "Read the permissions file again; with mistakes, keep the rules in "
                                + "force and say why"),
                Map.of("reloadPermissions", List.of()), Set.of());
    }

    @Override
    public String getPermissionsFile() {
        return accessControl.file().map(Path::toString).orElse("");
    }

    @Override
    public boolean isAuthorizationEnabled() {
        return accessControl.enabled();
    }

    @Override
    public String reloadPermissions() {
        return accessControl.reload();
    }
}
