// Recorder.java -- amq-recorder DIR OUT.csv: records an exported lsim scenario
// on a real ActiveMQ 5.17 broker (embedded, loopback only) with real Spring JMS
// 4.3 DefaultMessageListenerContainers, and writes the TRACE_FORMAT v1 trace.
//
// The order: the broker (persistent=false, useJmx=false, tcp://127.0.0.1:0,
// the scenario's destination policy); a warm-up of the JVM (sends to and a
// container on another queue); the nodes' containers initialised (their
// connections made); t = 0; each node started at its start time; the
// workload published at its times by one thread; when every message has
// ended, the scenario's tail; then every container shut down (shutdown_ms:
// the stops from then on are the shutdown's) and the trace written.
// Exit 0 recorded, 1 failed (the broker, a message that never ended),
// 2 bad input.
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.locks.LockSupport;
import javax.jms.Connection;
import javax.jms.DeliveryMode;
import javax.jms.MessageProducer;
import javax.jms.Session;
import javax.jms.TextMessage;
import org.apache.activemq.ActiveMQConnectionFactory;
import org.apache.activemq.ActiveMQConnectionMetaData;
import org.apache.activemq.broker.BrokerPlugin;
import org.apache.activemq.broker.BrokerService;
import org.apache.activemq.broker.region.group.CachedMessageGroupMapFactory;
import org.apache.activemq.broker.region.group.MessageGroupHashBucketFactory;
import org.apache.activemq.broker.region.group.SimpleMessageGroupMapFactory;
import org.apache.activemq.broker.region.policy.PolicyEntry;
import org.apache.activemq.broker.region.policy.PolicyMap;
import org.apache.activemq.command.ActiveMQQueue;
import org.springframework.core.SpringVersion;

public final class Recorder {
    static final String WARMUP_QUEUE = "lsim.recorder.warmup";
    static final int WARMUP_SENDS = 300;
    static final long GIVE_UP_NS = 120_000_000_000L;     // after the last publish

    public static void main(String[] args) {
        if (args.length != 2) {
            System.err.println("usage: amq-recorder DIR OUT.csv   (DIR: lsim record SCENARIO --export DIR)");
            System.exit(2);
        }
        int rc;
        try {
            rc = new Recorder().record(Paths.get(args[0]), Paths.get(args[1]));
        } catch (Scenario.BadInput e) {
            System.err.println(e.getMessage());
            rc = 2;
        } catch (Exception e) {
            System.err.println("amq-recorder: " + e);
            rc = 1;
        }
        System.exit(rc);
    }

    private BrokerService broker;
    private final List<Node> nodes = new ArrayList<>();
    private String groupMap;

    int record(Path dir, Path out) throws Exception {
        Scenario s = Scenario.read(dir);
        String queue = s.text("queue.name", "queue");
        if (!s.text("broker.kind", "").equals("activemq") || !s.text("container.kind", "").equals("dmlc"))
            throw new Scenario.BadInput(s.where("broker.kind"), "the recorder runs broker.kind "
                                        + "activemq with container.kind dmlc");
        Path parent = out.toAbsolutePath().getParent();
        if (parent == null || !Files.isDirectory(parent) || !Files.isWritable(parent))
            throw new Scenario.BadInput(out.toString(), "cannot write there (no such folder, or "
                                        + "not writable)");
        EventLog log = new EventLog(queue);
        BrokerWatch watch = new BrokerWatch(log, queue);
        Path data = Files.createTempDirectory("amq-recorder-");
        try {
            String url = startBroker(s, watch, queue, data);
            int n = (int) s.integer("nodes", 1);
            for (int i = 0; s.values.containsKey("nodes." + i + ".start") || (i < n && !s.values.containsKey("nodes.0.start")); i++)
                nodes.add(new Node(s, i, url, queue, log, watch));
            warmUp(url);
            for (Node node : nodes)
                node.initialize();
            return run(s, log, watch, url, queue, out);
        } finally {
            for (Node node : nodes)
                node.shutdown();
            if (broker != null) {
                broker.stop();
                broker.waitUntilStopped();
            }
            deleteTree(data);
        }
    }

    private String startBroker(Scenario s, BrokerWatch watch, String queue, Path data) throws Exception {
        broker = new BrokerService();
        broker.setBrokerName("lsim-recorder");
        broker.setPersistent(false);
        broker.setUseJmx(false);
        broker.setUseShutdownHook(false);
        broker.setDataDirectoryFile(data.toFile());
        broker.setTmpDataDirectory(data.resolve("tmp").toFile());
        broker.setPlugins(new BrokerPlugin[] { watch });
        broker.getSystemUsage().getMemoryUsage().setLimit(64L << 20);   // below the JVM's heap
        PolicyEntry policy = new PolicyEntry();
        policy.setQueue(queue);
        policy.setMaxPageSize((int) s.integer("broker.maxPageSize", 200));
        policy.setConsumersBeforeDispatchStarts((int) s.integer("broker.consumersBeforeDispatchStarts", 0));
        policy.setTimeBeforeDispatchStarts((int) (s.duration("broker.timeBeforeDispatchStarts", 0) / 1000000));
        int size = (int) s.integer("broker.groupMapSize", 1024);
        String kind = s.text("broker.messageGroupMapFactoryType", "cached");
        switch (kind) {
        case "cached": {
            CachedMessageGroupMapFactory f = new CachedMessageGroupMapFactory();
            f.setCacheSize(size);
            policy.setMessageGroupMapFactory(f);
            groupMap = "CachedMessageGroupMapFactory(cacheSize=" + size + ")";
            break;
        }
        case "bucket": {
            MessageGroupHashBucketFactory f = new MessageGroupHashBucketFactory();
            f.setBucketCount(size);
            policy.setMessageGroupMapFactory(f);
            groupMap = "MessageGroupHashBucketFactory(bucketCount=" + size + ", cacheSize=" + f.getCacheSize() + ")";
            break;
        }
        case "simple":
            policy.setMessageGroupMapFactory(new SimpleMessageGroupMapFactory());
            groupMap = "SimpleMessageGroupMapFactory";
            break;
        default:
            throw new Scenario.BadInput(s.where("broker.messageGroupMapFactoryType"),
                                        "messageGroupMapFactoryType '" + kind + "' is not cached, bucket or simple");
        }
        PolicyMap map = new PolicyMap();
        map.setPolicyEntries(List.of(policy));
        broker.setDestinationPolicy(map);
        broker.setDestinations(new org.apache.activemq.command.ActiveMQDestination[] {
            new ActiveMQQueue(queue), new ActiveMQQueue(WARMUP_QUEUE) });
        broker.addConnector("tcp://127.0.0.1:0").getName();
        broker.start();
        broker.waitUntilStarted();
        return "tcp://127.0.0.1:" + broker.getTransportConnectors().get(0).getConnectUri().getPort();
    }

    /** The JVM's code paths warmed on another queue: sends, dispatch, a container's
     *  receive loop (a cold JVM spreads the first invokers' starts over many ms). */
    private void warmUp(String url) throws Exception {
        ActiveMQConnectionFactory cf = new ActiveMQConnectionFactory(url);
        Connection c = cf.createConnection();
        try {
            Session session = c.createSession(false, Session.AUTO_ACKNOWLEDGE);
            MessageProducer p = session.createProducer(new ActiveMQQueue(WARMUP_QUEUE));
            p.setDeliveryMode(DeliveryMode.NON_PERSISTENT);
            for (int i = 0; i < WARMUP_SENDS; i++) {
                TextMessage m = session.createTextMessage("warm-up");
                m.setJMSCorrelationID("w" + i);
                m.setStringProperty("JMSXGroupID", "w" + (i % 7));
                p.send(m);
            }
        } finally {
            c.close();
        }
        org.springframework.jms.listener.DefaultMessageListenerContainer w =
            new org.springframework.jms.listener.DefaultMessageListenerContainer();
        Work work = new Work(null, null, "warm-up");
        w.setConnectionFactory(cf);
        w.setDestinationName(WARMUP_QUEUE);
        w.setConcurrency("1-3");
        w.setReceiveTimeout(50);
        w.setMessageListener(work);
        w.afterPropertiesSet();
        w.start();
        long until = System.nanoTime() + 10_000_000_000L;
        while (work.ended.get() < WARMUP_SENDS && System.nanoTime() < until)
            Thread.sleep(5);
        w.shutdown();
        Thread.sleep(100);
    }

    private int run(Scenario s, EventLog log, BrokerWatch watch, String url, String queue, Path out)
        throws Exception {
        List<Scenario.Message> msgs = s.messages;
        ActiveMQConnectionFactory cf = new ActiveMQConnectionFactory(url);
        Connection pc = cf.createConnection();
        pc.start();
        Session session = pc.createSession(false, Session.AUTO_ACKNOWLEDGE);
        MessageProducer producer = session.createProducer(new ActiveMQQueue(queue));
        producer.setDeliveryMode(DeliveryMode.NON_PERSISTENT);
        long t0 = System.nanoTime();
        log.start(t0);
        Thread starter = new Thread(() -> {
            for (Node node : nodes) {
                waitUntil(t0 + node.startNs);
                node.start();
            }
        }, "node-starter");
        List<Node> byStart = new ArrayList<>(nodes);
        byStart.sort((a, b) -> Long.compare(a.startNs, b.startNs));
        nodes.clear();
        nodes.addAll(byStart);
        starter.start();
        long maxLate = 0;
        for (Scenario.Message m : msgs) {
            long at = t0 + m.tNs;
            waitUntil(at);
            maxLate = Math.max(maxLate, System.nanoTime() - at);
            TextMessage tm = session.createTextMessage("");
            tm.setJMSCorrelationID(m.id);
            tm.setLongProperty(Work.SERVICE, m.serviceNs);
            if (!m.group.isEmpty())
                tm.setStringProperty("JMSXGroupID", m.group);
            if (m.groupSeq != 0)
                tm.setIntProperty("JMSXGroupSeq", m.groupSeq);
            producer.send(tm);
        }
        long lastPublish = System.nanoTime();
        starter.join();
        boolean allEnded = true;
        long limit = s.values.containsKey("duration") ? t0 + s.duration("duration", 0) : Long.MAX_VALUE;
        while (ended() < msgs.size()) {
            if (System.nanoTime() - lastPublish > GIVE_UP_NS || System.nanoTime() >= limit) {
                allEnded = false;
                break;
            }
            Thread.sleep(2);
        }
        long lastEnd = Long.MIN_VALUE;
        for (Node node : nodes)
            lastEnd = Math.max(lastEnd, node.work.lastEndNs.get());
        if (lastEnd == Long.MIN_VALUE)
            lastEnd = lastPublish;
        long shutdownAt = Math.min(limit, lastEnd + s.duration("tail", 0));
        waitUntil(shutdownAt);
        long shutdown = System.nanoTime();
        List<Thread> stops = new ArrayList<>();
        for (Node node : nodes) {
            Thread t = new Thread(node::shutdown, node.name + "-shutdown");
            stops.add(t);
            t.start();
        }
        for (Thread t : stops)
            t.join();
        long stopped = System.nanoTime();
        pc.close();
        log.write(out, meta(s, log, watch, queue, t0, shutdown, stopped, maxLate, allEnded));
        if (!allEnded)
            System.err.println("amq-recorder: " + ended() + " of " + msgs.size() + " messages ended before the recording gave up");
        return allEnded ? 0 : 1;
    }

    private int ended() {
        int n = 0;
        for (Node node : nodes)
            n += node.work.ended.get();
        return n;
    }

    private static void waitUntil(long nanoTime) {
        for (long left = nanoTime - System.nanoTime(); left > 0; left = nanoTime - System.nanoTime())
            LockSupport.parkNanos(left);
    }

    private List<String> meta(Scenario s, EventLog log, BrokerWatch watch, String queue, long t0,
                              long shutdown, long stopped, long maxLate, boolean allEnded)
        throws Scenario.BadInput {
        Node first = nodes.get(0);
        var c = first.container;
        String spring = SpringVersion.getVersion(), amq = ActiveMQConnectionMetaData.PROVIDER_VERSION;
        List<String> m = new ArrayList<>();
        m.add("trace_format: 1");
        m.add("source: real broker: Apache ActiveMQ " + amq + " (in-process BrokerService) + Spring JMS "
              + spring + " DefaultMessageListenerContainer (Debian packages libactivemq-java, libspring-jms-java; Java "
              + System.getProperty("java.version") + ")");
        m.add("recorder: tests/live/activemq (amq-recorder), from lsim record --export");
        m.add("scenario: " + s.text("name", "scenario"));
        m.add("seed: " + s.text("seed", ""));
        m.add("broker: BrokerService persistent=false useJmx=false advisorySupport=true; connector tcp://127.0.0.1 "
              + "(loopback only, an ephemeral port); publisher warm-up " + WARMUP_SENDS + " sends to queue "
              + WARMUP_QUEUE + " and a container on it before t=0; destination policy for " + queue
              + ": maxPageSize=" + s.text("broker.maxPageSize", "200") + " consumersBeforeDispatchStarts="
              + s.text("broker.consumersBeforeDispatchStarts", "0") + " timeBeforeDispatchStarts="
              + s.text("broker.timeBeforeDispatchStarts", "0s") + "; message group map " + groupMap);
        m.add("queue: " + queue);
        m.add("nodes: " + nodes.size());
        StringBuilder started = new StringBuilder();
        for (Node node : nodes)
            started.append(started.length() == 0 ? "" : ", ").append(node.name).append('=')
                   .append(String.format(Locale.ROOT, "%.3f", log.ms(node.startedNs)));
        m.add("node_started_ms: " + started);
        m.add(String.format(Locale.ROOT, "containers_started_at_ms: %.3f", log.ms(first.startedNs)));
        m.add("container: org.springframework.jms.listener.DefaultMessageListenerContainer (Spring JMS " + spring
              + "; one per node, own ActiveMQConnectionFactory + shared connection per container, client id = node)");
        m.add("concurrency: " + c.getConcurrentConsumers() + "-" + c.getMaxConcurrentConsumers()
              + " (concurrentConsumers=" + c.getConcurrentConsumers() + ", maxConcurrentConsumers="
              + c.getMaxConcurrentConsumers() + ", per node)");
        m.add("receive_timeout_ms: " + s.duration("container.receiveTimeout", 1000000000L) / 1000000);
        m.add("prefetch: " + s.text("broker.queuePrefetch", "1000") + " (client queuePrefetch)");
        m.add("max_messages_per_task: " + c.getMaxMessagesPerTask()
              + (c.getMaxMessagesPerTask() < 0 ? " (unlimited)" : ""));
        m.add("idle_consumer_limit: " + c.getIdleConsumerLimit());
        m.add("idle_task_execution_limit: " + c.getIdleTaskExecutionLimit());
        m.add("cache_level: " + first.cacheLevelName());
        m.add("session_acknowledge_mode: AUTO_ACKNOWLEDGE, transacted=" + c.isSessionTransacted());
        m.add("task_executor: " + s.text("container.taskExecutor", "simple")
              + " (simple: Spring's default SimpleAsyncTaskExecutor, a thread per invoker Runnable)");
        m.add("listener: MessageListener: begin, park for the message's service time, end");
        m.add("publisher: 1 thread, 1 connection, non-transacted session, NON_PERSISTENT (asynchronous send), "
              + "sends at workload t_ms (workload_offset_ms 0)");
        m.add("publish_time: broker-side: BrokerFilter.send() entry (same JVM, same clock)");
        m.add("consumer_time: broker-side: consumer_start at BrokerFilter.addConsumer (the subscription), "
              + "consumer_stop at BrokerFilter.removeConsumer");
        m.add("events: publish deliver begin end consumer_start consumer_stop (deliver = broker dispatch into the "
              + "consumer's prefetch buffer, BrokerFilter.preProcessDispatch)");
        m.add("messages: " + s.messages.size());
        m.add("workload_offset_ms: 0.000");
        m.add(String.format(Locale.ROOT, "publisher_max_lateness_ms: %.3f", maxLate / 1e6));
        m.add("all_messages_ended: " + allEnded);
        int redelivered = 0, errors = 0;
        for (Node node : nodes) {
            redelivered += node.work.redelivered.get();
            errors += node.work.errors.get();
        }
        m.add("redelivered: " + redelivered);
        m.add("listener_errors: " + errors);
        m.add("tail_ms: " + s.duration("tail", 0) / 1000000);
        m.add(String.format(Locale.ROOT, "shutdown_ms: %.3f (container.shutdown() called; every consumer_stop at or "
                            + "after it is the shutdown's, not scaling)", log.ms(shutdown)));
        m.add(String.format(Locale.ROOT, "containers_stopped_ms: %.3f", log.ms(stopped)));
        return m;
    }

    private static void deleteTree(Path p) {
        try (var walk = Files.walk(p)) {
            walk.sorted(java.util.Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
        } catch (Exception e) {
            // a temporary folder left behind is not the recording's failure
        }
    }
}
