# Battle records arrive with the battles issue; the engine in battles/engine/ needs no models.
