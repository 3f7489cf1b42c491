package org.tandembroker.management.jmx;

import java.util.List;
import java.util.Map;
import java.util.Set;
import javax.management.MBeanAttributeInfo;
import javax.management.MBeanInfo;
import javax.management.MBeanOperationInfo;
import javax.management.MBeanParameterInfo;
import javax.management.StandardMBean;

/**
 * A standard MBean whose attributes, operations and parameters carry descriptions and real parameter names (jconsole
 * shows {@code nodeName} instead of {@code p1}), and whose read-only operations say so (impact INFO, which
 * {@link RoleAccessControl} opens to monitors).
 */
class DescribedMBean<T> extends StandardMBean {
    private final String description;
    private final Map<String, String> descriptions;
    private final Map<String, List<String>> parameterNames;
    private final Set<String> readOnlyOperations;

    DescribedMBean(T implementation, Class<T> mbeanInterface, String description, Map<String, String> descriptions,
                   Map<String, List<String>> parameterNames, Set<String> readOnlyOperations) {
        super(implementation, mbeanInterface, false);
        this.description = description;
        this.descriptions = descriptions;
        this.parameterNames = parameterNames;
        this.readOnlyOperations = readOnlyOperations;
    }

    static <T> DescribedMBean<T> of(T implementation, Class<T> mbeanInterface, String description,
                                    Map<String, String> descriptions, Map<String, List<String>> parameterNames,
                                    Set<String> readOnlyOperations) {
        return new DescribedMBean<>(implementation, mbeanInterface, description, descriptions, parameterNames,
                readOnlyOperations);
    }

    @Override
    protected String getDescription(MBeanInfo info) {
        return description;
    }

    @Override
    protected String getDescription(MBeanAttributeInfo info) {
        return descriptions.getOrDefault(info.getName(), info.getName());
    }

    @Override
    protected String getDescription(MBeanOperationInfo info) {
        return descriptions.getOrDefault(info.getName(), info.getName());
    }

    @Override
    protected String getParameterName(MBeanOperationInfo op, MBeanParameterInfo param, int sequence) {
        List<String> names = parameterNames.get(op.getName());
        return names != null && sequence < names.size() ? names.get(sequence) : super.getParameterName(op, param,
                sequence);
    }

    @Override
    protected int getImpact(MBeanOperationInfo info) {
        return readOnlyOperations.contains(info.getName()) ? MBeanOperationInfo.INFO : MBeanOperationInfo.ACTION;
    }
}
