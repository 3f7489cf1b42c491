package org.tandembroker.store.bdb.tools;

import com.sleepycat.je.EnvironmentLockedException;
import java.nio.file.Path;

/**
 * Runs one of JE's utilities that open a store read-write ({@code DbResetRepGroup}, {@code DbEnableReplication}):
 * refuses at once when a broker has the store open, keeps the caller's thread name (JE renames the thread that
 * opens a replicated environment), and turns JE's exceptions into one line for the operator.
 */
final class JeUtility {
    private JeUtility() {
    }

    static void run(Path store, String what, Runnable utility) {
        StoreLock.lockStopped(store, what).close(); // JE takes the same lock itself: a broker starting now loses
        Thread self = Thread.currentThread();
        String name = self.getName();
        try {
            utility.run();
        } catch (EnvironmentLockedException e) {
            throw ToolFailure.refused("the store at " + store + " is in use (a broker has it open): stop that broker "
                    + "first to " + what);
        } catch (RuntimeException e) {
            throw ToolFailure.refused("JE could not " + what + " (store " + store + "): " + ToolFailure.firstLine(e));
        } finally {
            self.setName(name);
        }
    }
}
