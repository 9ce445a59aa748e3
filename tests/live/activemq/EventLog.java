// EventLog.java -- the events of a recording, taken from many threads (the
// broker's, the listeners'), stamped on one clock (System.nanoTime, t = 0 the
// recording's start) and written as TRACE_FORMAT v1, sorted by time.
import java.io.IOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;

final class EventLog {
    private static final class Event {
        final long tNs, seq;
        final String kind, node, consumer, msg, group;

        Event(long tNs, long seq, String kind, String node, String consumer, String msg,
              String group) {
            this.tNs = tNs;
            this.seq = seq;
            this.kind = kind;
            this.node = node;
            this.consumer = consumer;
            this.msg = msg;
            this.group = group;
        }
    }

    private final List<Event> events = new ArrayList<>();
    private final String queue;
    private volatile long t0 = Long.MAX_VALUE;   // events before the start are not kept

    EventLog(String queue) {
        this.queue = queue;
    }

    void start(long t0Ns) {
        t0 = t0Ns;
    }

    long t0() {
        return t0;
    }

    double ms(long nanoTime) {
        return (nanoTime - t0) / 1e6;
    }

    synchronized void add(long nanoTime, String kind, String node, String consumer, String msg,
                          String group) {
        if (nanoTime < t0)
            return;
        events.add(new Event(nanoTime - t0, events.size(), kind, node == null ? "" : node,
                             consumer == null ? "" : consumer, msg == null ? "" : msg,
                             group == null ? "" : group));
    }

    synchronized int count(String kind) {
        int n = 0;
        for (Event e : events)
            if (e.kind.equals(kind))
                n++;
        return n;
    }

    /** The trace: metadata lines (each "key: value"), the header, the events by time;
     *  written beside `out` and renamed onto it, so that nothing half-written is left. */
    synchronized void write(Path out, List<String> meta) throws IOException {
        events.sort(Comparator.comparingLong((Event e) -> e.tNs).thenComparingLong(e -> e.seq));
        Path parent = out.toAbsolutePath().getParent();
        Path tmp = Files.createTempFile(parent, ".amq-recorder-", ".csv");
        try (Writer w = Files.newBufferedWriter(tmp, StandardCharsets.UTF_8)) {
            for (String m : meta)
                w.write("# " + m + "\n");
            w.write("t_ms,event,node,consumer,msg,group,queue\n");
            for (Event e : events)
                w.write(String.format(Locale.ROOT, "%d.%03d,%s,%s,%s,%s,%s,%s\n",
                                      e.tNs / 1000000, (e.tNs / 1000) % 1000, e.kind, e.node,
                                      e.consumer, e.msg, e.group, queue));
        } catch (IOException e) {
            Files.deleteIfExists(tmp);
            throw e;
        }
        Files.move(tmp, out, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }
}
