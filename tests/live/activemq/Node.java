// Node.java -- one node: a real Spring DefaultMessageListenerContainer with its
// own ActiveMQConnectionFactory (and so its own shared connection, whose client
// id names the node at the broker), configured from the exported scenario's
// container.* keys.  Only what Spring 4.3 has is accepted: a setting the
// recorder cannot run is refused as bad input, not silently dropped.
import org.apache.activemq.ActiveMQConnectionFactory;
import org.springframework.jms.connection.JmsTransactionManager;
import org.springframework.jms.listener.DefaultMessageListenerContainer;
import org.springframework.scheduling.concurrent.ThreadPoolTaskExecutor;

final class Node {
    final String name;
    final long startNs;                    // after the recording's t = 0
    final DefaultMessageListenerContainer container = new DefaultMessageListenerContainer();
    final Work work;
    private ThreadPoolTaskExecutor pool;
    volatile long startedNs;

    Node(Scenario s, int index, String brokerUrl, String queue, EventLog log, BrokerWatch watch)
        throws Scenario.BadInput {
        name = "node-" + (index + 1);
        startNs = s.duration("nodes." + index + ".start", 0);
        work = new Work(log, watch, name);
        ActiveMQConnectionFactory cf = new ActiveMQConnectionFactory(brokerUrl);
        cf.getPrefetchPolicy().setQueuePrefetch((int) s.integer("broker.queuePrefetch", 1000));
        container.setConnectionFactory(cf);
        container.setDestinationName(queue);
        container.setClientId(name);
        container.setBeanName(name);
        container.setMessageListener(work);
        configure(s, cf);
    }

    private void configure(Scenario s, ActiveMQConnectionFactory cf) throws Scenario.BadInput {
        String version = s.text("container.version", "4.3");
        if (!version.equals("4.3") && !version.startsWith("4.3."))
            throw new Scenario.BadInput(s.where("container.version"), "container.version '"
                + version + "': the recorder runs Spring JMS 4.3.30 (Debian's libspring-jms-java)");
        if (s.values.containsKey("container.concurrency"))
            container.setConcurrency(s.text("container.concurrency", "1"));
        if (s.values.containsKey("container.concurrentConsumers"))
            container.setConcurrentConsumers((int) s.integer("container.concurrentConsumers", 1));
        if (s.values.containsKey("container.maxConcurrentConsumers"))
            container.setMaxConcurrentConsumers((int) s.integer("container.maxConcurrentConsumers", 1));
        container.setReceiveTimeout(s.duration("container.receiveTimeout", 1000000000L) / 1000000);
        container.setIdleConsumerLimit((int) s.integer("container.idleConsumerLimit", 1));
        container.setIdleTaskExecutionLimit((int) s.integer("container.idleTaskExecutionLimit", 1));
        long perTask = s.integer("container.maxMessagesPerTask", -1);
        if (perTask > 0)
            container.setMaxMessagesPerTask((int) perTask);
        if (s.values.containsKey("container.idleReceivesPerTaskLimit"))
            throw new Scenario.BadInput(s.where("container.idleReceivesPerTaskLimit"),
                "idleReceivesPerTaskLimit came in Spring JMS 5.3.5; the recorder runs 4.3.30");
        String level = s.text("container.cacheLevel", "auto");
        container.setCacheLevelName("CACHE_" + level.toUpperCase(java.util.Locale.ROOT));
        if (s.text("container.transactionManager", "false").equals("true"))
            container.setTransactionManager(new JmsTransactionManager(cf));
        String executor = s.text("container.taskExecutor", "simple");
        if (executor.equals("threadPool")) {
            pool = new ThreadPoolTaskExecutor();
            pool.setThreadNamePrefix(name + "-");
            pool.setCorePoolSize(Math.max(1, container.getMaxConcurrentConsumers()));
            pool.initialize();
            container.setTaskExecutor(pool);
        } else if (!executor.equals("simple")) {
            throw new Scenario.BadInput(s.where("container.taskExecutor"),
                                        "container.taskExecutor '" + executor + "' is not simple or threadPool");
        }
        for (String key : s.values.keySet())
            if (key.startsWith("container.failures") || key.startsWith("container.retry")
                || key.startsWith("container.changes") || key.startsWith("container.spring"))
                throw new Scenario.BadInput(s.where(key), key
                    + ": the recorder runs a listener that only works (no failures, retries or "
                    + "run-time changes)");
    }

    /** The container's own start up to its shared connection (before t = 0). */
    void initialize() {
        container.afterPropertiesSet();
    }

    void start() {
        startedNs = System.nanoTime();
        container.start();
    }

    void shutdown() {
        container.shutdown();
        if (pool != null)
            pool.shutdown();
    }

    String cacheLevelName() {
        switch (container.getCacheLevel()) {
        case DefaultMessageListenerContainer.CACHE_NONE: return "CACHE_NONE";
        case DefaultMessageListenerContainer.CACHE_CONNECTION: return "CACHE_CONNECTION";
        case DefaultMessageListenerContainer.CACHE_SESSION: return "CACHE_SESSION";
        case DefaultMessageListenerContainer.CACHE_CONSUMER: return "CACHE_CONSUMER";
        default: return "CACHE_AUTO";
        }
    }
}
