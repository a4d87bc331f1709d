/**
 * Undoes provisionings that a controller process sent to an application and never stored
 * (it died between the application's answer and its own commit): on start and then every few
 * seconds, each intent past its lease (intent-store.ts) is checked, and unless its resource was
 * stored after all, the application is told to remove what it created with
 * `DELETE <endpoint>/<service>/<id>` (same transaction id as the provisioning). 200/204 remove
 * it, and so do 404/410 (the application never created it, or removed it already); anything
 * else (a 202 too: nobody would follow it up) is tried again later, backing off. Removing rather
 * than completing: the caller of the provisioning never got an answer, so nothing acknowledged
 * is lost, and the application's reply that would prove what it created died with the process.
 */
import type { Logger } from "pino";
import { DatabaseOutageLog } from "../observability/database-outage-log.ts";
import { BackgroundLoop } from "../support/background-loop.ts";
import type { EndpointTarget } from "../forward/endpoint-client.ts";
import { ApplicationReplyError, type Forwarder } from "../forward/forwarder.ts";
import type { TypeRegistry } from "../registry.ts";
import type { DueIntent, IntentStore } from "./intent-store.ts";

/** What the reconciler needs from the rest of the controller. */
export interface ReconcilerParts {
  readonly intents: IntentStore;
  readonly forwarder: Forwarder;
  registry(): TypeRegistry;
  targetOf(instanceId: string): Promise<EndpointTarget | undefined>;
}

/** Statuses of the application's DELETE after which it holds nothing of the resource. */
const GONE = new Set([404, 410]);

export class IntentReconciler {
  private readonly loop: BackgroundLoop;

  constructor(
    private readonly parts: ReconcilerParts,
    private readonly logger: Logger,
    everyMs = 5_000,
  ) {
    // Its own statements carry no request data, so the message is safe to log. A pass settles
    // all that is due, so the next one waits the full pause.
    this.loop = new BackgroundLoop(
      async () => {
        await this.reconcileDue();
        return false;
      },
      everyMs,
      (error) =>
        this.logger.error(
          { err: { name: (error as Error).name, message: (error as Error).message } },
          "reconciling provisioning intents failed",
        ),
      new DatabaseOutageLog(logger, "provisioning intents"),
    );
  }

  start(): void {
    this.loop.start();
  }

  /** Stops looking for intents and waits for the one in hand. */
  stop(): Promise<void> {
    return this.loop.stop();
  }

  /** One pass over the intents due now; the number settled (for tests). */
  async reconcileDue(): Promise<number> {
    let settled = 0;
    for (;;) {
      const due = await this.parts.intents.claimDue(20, this.parts.intents.leaseMs);
      if (!due.length) return settled;
      for (const intent of due) if (await this.settle(intent)) settled++;
    }
  }

  /** Undoes one intent; false when it must be tried again (its lease was renewed by claimDue, backing off here). */
  private async settle(intent: DueIntent): Promise<boolean> {
    const { intents } = this.parts;
    if (await intents.resourceStored(intent.resourceId)) {
      await intents.drop(intent.resourceId);
      return true;
    }
    const type = this.parts.registry().get(intent.typeId);
    const target = await this.parts.targetOf(intent.instanceId);
    // Without its instance or type there is no application left to hold anything.
    if (!type || !target) {
      await intents.drop(intent.resourceId);
      this.logger.warn(
        {
          resource: intent.resourceId,
          type: intent.typeId,
          instance: intent.instanceId,
          transactionId: intent.transactionId,
        },
        "provisioning intent dropped: its instance or type is gone",
      );
      return true;
    }
    let error = "";
    try {
      const outcome = await this.parts.forwarder.unprovision(target, type, intent.resourceId, {
        transactionId: intent.transactionId,
      });
      if (outcome.kind === "accepted")
        error = "the application answered 202; its DELETE is repeated until it removes the resource at once";
    } catch (e) {
      if (!(e instanceof ApplicationReplyError && GONE.has(e.reply.status)))
        error =
          e instanceof ApplicationReplyError ? `the application answered ${e.reply.status}` : (e as Error).message;
    }
    if (!error) {
      await intents.drop(intent.resourceId);
      this.logger.warn(
        {
          resource: intent.resourceId,
          type: intent.typeId,
          instance: intent.instanceId,
          transactionId: intent.transactionId,
        },
        "provisioning that was never stored removed at the application",
      );
      return true;
    }
    await intents.failed(intent.resourceId, error, Math.min(5_000 * 2 ** Math.min(intent.attempts, 7), 600_000));
    this.logger.warn(
      { resource: intent.resourceId, transactionId: intent.transactionId, attempts: intent.attempts, error },
      "provisioning intent not settled; tried again later",
    );
    return false;
  }
}
