package org.tandembroker.tools.create;

import org.tandembroker.tools.ToolFailure;

/** Why {@code tandem create} wrote nothing: one line for the operator, and the exit code. */
final class CreateFailure {
    private CreateFailure() {
    }

    /** A bad option value: exit code 2, naming the option, the value and what is allowed. */
    static ToolFailure badOption(String option, String value, String allowed) {
        return ToolFailure.usage(option + " has invalid value '" + value + "'; allowed: " + allowed);
    }
}
