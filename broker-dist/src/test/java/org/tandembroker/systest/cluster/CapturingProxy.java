package org.tandembroker.systest.cluster;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * A TCP proxy that appends every byte it forwards, both directions, to a file: the program a {@link ReplicationTap}
 * container runs ({@code java -cp DIR CapturingProxy LISTEN_PORT TARGET_HOST TARGET_PORT FILE}). One class file with
 * no inner classes and only {@code java.base}, so that the test copies just this file into the base image. It runs
 * until its container is removed.
 *
 * <p><b>Threads.</b> The main thread accepts; each connection has two daemon threads, one per direction. The capture
 * file is shared: each chunk is written whole under its lock.
 */
public final class CapturingProxy {
    private CapturingProxy() {
    }

    public static void main(String[] args) throws IOException {
        int listenPort = Integer.parseInt(args[0]);
        String targetHost = args[1];
        int targetPort = Integer.parseInt(args[2]);
        OutputStream capture = Files.newOutputStream(Path.of(args[3]), StandardOpenOption.CREATE,
                StandardOpenOption.APPEND);
        try (ServerSocket server = new ServerSocket(listenPort)) {
            System.out.println("capturing proxy listening on " + listenPort + ", forwarding to " + targetHost + ":"
                    + targetPort);
            while (!server.isClosed()) {
                Socket client = server.accept();
                Thread connect = new Thread(() -> forward(client, targetHost, targetPort, capture), "connect");
                connect.setDaemon(true);
                connect.start();
            }
        }
    }

    private static void forward(Socket client, String targetHost, int targetPort, OutputStream capture) {
        Socket upstream;
        try {
            upstream = new Socket(targetHost, targetPort);
        } catch (IOException e) {
            System.out.println("cannot reach " + targetHost + ":" + targetPort + ": " + e);
            closeQuietly(client);
            return;
        }
        Thread back = new Thread(() -> pump(upstream, client, capture), "upstream-to-client");
        back.setDaemon(true);
        back.start();
        pump(client, upstream, capture);
    }

    private static void pump(Socket from, Socket to, OutputStream capture) {
        byte[] buffer = new byte[16384];
        try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
            for (int read = in.read(buffer); read >= 0; read = in.read(buffer)) {
                synchronized (capture) {
                    capture.write(buffer, 0, read);
                    capture.flush();
                }
                out.write(buffer, 0, read);
                out.flush();
            }
        } catch (IOException e) {
            // one side closed or reset: close both
        } finally {
            closeQuietly(from);
            closeQuietly(to);
        }
    }

    private static void closeQuietly(Socket socket) {
        try {
            socket.close();
        } catch (IOException e) {
            // closing anyway
        }
    }
}
