// Scenario.java -- an exported scenario (`lsim record SCENARIO --export DIR`):
// DIR/scenario.conf (key=value, the scenario with every default filled in)
// and DIR/workload.csv (t_ms,msg,group,service_ms,group_seq).  Bad input is
// reported as `file:line:column: message` (BadInput), never half-read.
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

final class Scenario {
    static final class BadInput extends Exception {
        BadInput(String where, String message) {
            super(where + ": " + message);
        }
    }

    static final class Message {
        final long tNs, serviceNs;
        final String id, group;
        final int groupSeq;            // 1 first, -1 closes the group, 0 unset

        Message(long tNs, String id, String group, long serviceNs, int groupSeq) {
            this.tNs = tNs;
            this.id = id;
            this.group = group;
            this.serviceNs = serviceNs;
            this.groupSeq = groupSeq;
        }
    }

    final Path conf;
    final Map<String, String> values = new HashMap<>();
    final Map<String, Integer> lines = new HashMap<>();
    final List<Message> messages = new ArrayList<>();

    private Scenario(Path conf) {
        this.conf = conf;
    }

    static Scenario read(Path dir) throws BadInput, IOException {
        Scenario s = new Scenario(dir.resolve("scenario.conf"));
        if (!Files.isRegularFile(s.conf))
            throw new BadInput(s.conf.toString(), "no such file (give the folder `lsim record "
                               + "SCENARIO --export DIR` wrote)");
        List<String> text = Files.readAllLines(s.conf, StandardCharsets.UTF_8);
        for (int i = 0; i < text.size(); i++) {
            String line = text.get(i);
            if (line.isEmpty() || line.startsWith("#"))
                continue;
            int eq = line.indexOf('=');
            if (eq <= 0)
                throw new BadInput(s.conf + ":" + (i + 1) + ":1", "expected key=value");
            s.values.put(line.substring(0, eq), line.substring(eq + 1));
            s.lines.put(line.substring(0, eq), i + 1);
        }
        Path workload = dir.resolve("workload.csv");
        if (!Files.isRegularFile(workload))
            throw new BadInput(workload.toString(), "no such file (the recorder runs a scenario "
                               + "of one queue; an export of several writes workload.QUEUE.csv)");
        s.readWorkload(workload);
        return s;
    }

    private void readWorkload(Path path) throws BadInput, IOException {
        List<String> text = Files.readAllLines(path, StandardCharsets.UTF_8);
        boolean header = false;
        for (int i = 0; i < text.size(); i++) {
            String line = text.get(i), where = path + ":" + (i + 1) + ":1";
            if (line.isEmpty() || line.startsWith("#"))
                continue;
            if (!header) {
                if (!line.startsWith("t_ms,msg,group,service_ms"))
                    throw new BadInput(where, "expected the header t_ms,msg,group,service_ms");
                header = true;
                continue;
            }
            String[] f = line.split(",", -1);
            if (f.length < 4 || f[1].isEmpty())
                throw new BadInput(where, "expected t_ms,msg,group,service_ms[,group_seq]");
            try {
                int seq = f.length > 4 && !f[4].isEmpty() ? Integer.parseInt(f[4]) : 0;
                messages.add(new Message(msToNs(f[0]), f[1], f[2], msToNs(f[3]), seq));
            } catch (NumberFormatException e) {
                throw new BadInput(where, "not a number: " + e.getMessage());
            }
        }
        if (!header)
            throw new BadInput(path + ":1:1", "no header line t_ms,msg,group,service_ms");
    }

    private static long msToNs(String ms) {
        return Math.round(Double.parseDouble(ms) * 1e6);
    }

    String text(String key, String fallback) {
        return values.getOrDefault(key, fallback);
    }

    String where(String key) {
        Integer line = lines.get(key);
        return conf + ":" + (line == null ? 1 : line) + ":1";
    }

    long integer(String key, long fallback) throws BadInput {
        String v = values.get(key);
        if (v == null)
            return fallback;
        try {
            return Long.parseLong(v);
        } catch (NumberFormatException e) {
            throw new BadInput(where(key), key + ": expected an integer, found '" + v + "'");
        }
    }

    /** A duration as lsim writes it (250us, 5ms, 1s, 2m, 1h), in nanoseconds. */
    long duration(String key, long fallbackNs) throws BadInput {
        String v = values.get(key);
        if (v == null)
            return fallbackNs;
        String[][] units = { { "ns", "1" }, { "us", "1e3" }, { "ms", "1e6" }, { "s", "1e9" },
                             { "m", "6e10" }, { "h", "3.6e12" } };
        for (String[] u : units)
            if (v.endsWith(u[0]))
                try {
                    return Math.round(Double.parseDouble(v.substring(0, v.length() - u[0].length()))
                                      * Double.parseDouble(u[1]));
                } catch (NumberFormatException e) {
                    break;
                }
        throw new BadInput(where(key), key + ": expected a duration (5ms, 1s), found '" + v + "'");
    }
}
