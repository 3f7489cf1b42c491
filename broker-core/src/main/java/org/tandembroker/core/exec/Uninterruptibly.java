package org.tandembroker.core.exec;

import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * Waits that must finish even when the waiting thread is interrupted (closing a store must not leave its
 * threads running), and that then restore the thread's interrupt status for its caller to see.
 */
public final class Uninterruptibly {
    private Uninterruptibly() {
    }

    /** The future's value; an interrupt while waiting is remembered and re-asserted afterwards. */
    public static <T> T get(Future<T> future) throws ExecutionException {
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    return future.get();
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Waits until every task of a shut-down executor has ended. */
    public static void awaitTermination(ExecutorService executor) {
        until(() -> executor.awaitTermination(1, TimeUnit.MINUTES));
    }

    /** Waits until the thread has ended. */
    public static void join(Thread thread) {
        until(() -> {
            thread.join();
            return true;
        });
    }

    private interface Wait {
        /** True when done; false to wait again. */
        boolean done() throws InterruptedException;
    }

    private static void until(Wait wait) {
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    if (wait.done()) {
                        return;
                    }
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
